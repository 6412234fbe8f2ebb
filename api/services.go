package api

import (
	"context"
	"log/slog"

	"platform/store"
)

// EventRecorder durably records a platform event (DESIGN §4) before the
// write that caused it is acknowledged.
type EventRecorder interface {
	Record(ctx context.Context, name string, data store.Doc) error
}

// Services are the dependencies hooks and actions may use.
type Services struct {
	Store    store.Store
	Events   EventRecorder
	Registry *Registry
	Log      *slog.Logger
}
