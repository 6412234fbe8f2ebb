package api

import (
	"context"
	"log/slog"

	"platform/kernel/store"
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
	// Workflows starts workflows on the worker's task queue; nil in a
	// process without Temporal.
	Workflows WorkflowStarter
}

// WorkflowStarter starts a workflow, named as package workflows/contract
// names it, under a deterministic id. An id that already runs or ran is
// not started again (started=false, no error), so an action that hands
// work to the worker can be retried safely.
type WorkflowStarter interface {
	StartOnce(ctx context.Context, id string, attrs map[string]string, workflow string, input any) (started bool, err error)
}
