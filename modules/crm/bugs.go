package crm

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"platform/api"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

var _ api.BugReporter = (*BugRecorder)(nil)

// BugRecorder records runtime errors as tasks of type Bug (the platform
// convention). The task names the debug id and route only: the cause stays
// in the logs, found by the debug id.
type BugRecorder struct {
	Store store.Store
	Log   *slog.Logger
}

// ReportBug implements api.BugReporter. A cancellation or an expired
// deadline is no defect of the code (a client hung up, a dependency was
// slow): the log has it, and no task is filed.
func (b *BugRecorder) ReportBug(ctx context.Context, debugID, route string, cause error) {
	if errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
		return
	}
	if _, err := tenant.Customer(ctx); err != nil {
		return // no customer to file it under; the log line has it
	}
	// The request may be cancelled already; the record must still be written.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	now := time.Now().UTC().Truncate(time.Millisecond)
	doc := store.Doc{
		"_id": store.NewID(), "title": "Runtime error in " + route,
		"description": "An unexpected error answered 500. Debug id: `" + debugID + "`; the cause is in the platform log under this id.",
		"type":        TypeBug, "priority": "high", "_status": TaskOpen, "debugId": debugID,
		"createdAt": now, "updatedAt": now,
	}
	if err := b.Store.Collection("tasks").Insert(ctx, doc); err != nil {
		b.Log.ErrorContext(ctx, "record bug task", "error", err)
	}
}
