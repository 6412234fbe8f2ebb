// Package bugs files the platform's runtime errors as CRM tasks of type Bug
// (the platform convention), through the record service: from failed
// requests (api.BugReporter), from workflows and activities (the
// ReportBug activity) and from background work such as the sweeper.
package bugs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/crm"
)

// Recorder records runtime errors as tasks of type Bug, through the
// record service like any write. One recurring
// fault is one task: occurrences with the same signature (where it
// happened and the kind of error) count up on it and move its lastSeenAt,
// and a done one is reopened. The task names where and the debug id only:
// the cause stays in the logs, found by the debug id.
type Recorder struct {
	Service *resource.Service
	Log     *slog.Logger
}

// Bug is one occurrence of a runtime error.
type Bug struct {
	// Where names the place: a route ("GET /crm/consumers/:id") or a
	// workflow or activity type ("workflow PipelineRun").
	Where string
	// DebugID finds the occurrence in the logs (a request's debug id, a
	// workflow's id).
	DebugID string
	// Kind is what went wrong (KindOf the error): with Where, the task's
	// signature.
	Kind  string
	Cause error // nil when it did not cross to here (a workflow's fault)
}

// ReportBug implements api.BugReporter: a request that failed with 500.
func (b *Recorder) ReportBug(ctx context.Context, debugID, route string, cause error) {
	b.Record(ctx, Bug{Where: route, DebugID: debugID, Kind: KindOf(cause), Cause: cause})
}

// ReportFault implements the system activities' reporter: a fault inside
// a workflow, known by where it happened and its kind (its error does not
// cross the workflow's boundary).
func (b *Recorder) ReportFault(ctx context.Context, where, debugID, kind string) {
	b.Record(ctx, Bug{Where: where, DebugID: debugID, Kind: kind})
}

// Record files the occurrence under the customer in ctx. A cancellation or
// an expired deadline is no defect of the code (a client hung up, a
// dependency was slow): the log has it, and no task is filed.
func (b *Recorder) Record(ctx context.Context, bug Bug) {
	if errors.Is(bug.Cause, context.Canceled) || errors.Is(bug.Cause, context.DeadlineExceeded) {
		return
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return // no customer to file it under; the log line has it
	}
	// The caller may be cancelled already; the record must still be written.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	ctx = resource.AsPlatform(ctx, customer)
	if err := b.file(ctx, bug); err != nil {
		b.Log.ErrorContext(ctx, "record bug task", "where", bug.Where, "error", err)
	}
}

// file counts the occurrence on the task of its signature, creating the
// task the first time (a concurrent first occurrence loses the race on
// the unique signature and counts instead).
func (b *Recorder) file(ctx context.Context, bug Bug) error {
	tasks := b.Service.Registry.Get("crm", "tasks")
	sig := Signature(bug)
	err := b.recur(ctx, tasks, sig, bug)
	if resource.KindOf(err) != resource.KindNotFound {
		return err
	}
	_, err = b.Service.CreateWith(ctx, tasks, store.Doc{
		"title": "Runtime error in " + bug.Where, "type": crm.TypeBug, "priority": "high",
		"description": "An unexpected error in " + bug.Where + ". Debug id of the first occurrence: `" + bug.DebugID +
			"`; the cause is in the platform log under this id (the latest occurrence's id is in debugId).",
	}, store.Doc{"signature": sig, "occurrences": int64(1), "lastSeenAt": time.Now().UTC().Truncate(time.Millisecond), "debugId": bug.DebugID})
	if resource.KindOf(err) == resource.KindConflict {
		return b.recur(ctx, tasks, sig, bug)
	}
	return err
}

// recur counts one more occurrence on the task of sig and reopens it if
// it was done.
func (b *Recorder) recur(ctx context.Context, tasks *resource.Resource, sig string, bug Bug) error {
	doc, err := b.Service.Apply(ctx, tasks, query.Eq("signature", sig), resource.Change{
		Inc:   map[string]any{"occurrences": int64(1)},
		Set:   store.Doc{"lastSeenAt": time.Now().UTC().Truncate(time.Millisecond), "debugId": bug.DebugID},
		Event: resource.EventUpdated,
	})
	if err != nil || doc["_status"] != crm.TaskDone {
		return err
	}
	_, err = b.Service.Apply(ctx, tasks, query.AllOf(query.Eq("signature", sig), query.Eq("_status", crm.TaskDone)),
		resource.Change{Set: store.Doc{"_status": crm.TaskOpen}, Event: "reopened"})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil // reopened meanwhile
	}
	return err
}

// Signature identifies one recurring fault: where it happened and the kind
// of error, not its text, which holds ids that differ every time.
func Signature(bug Bug) string {
	return bug.Where + " | " + bug.Kind
}

// KindOf names the kind of an error: the record service's kind, or the Go
// type of the innermost cause.
func KindOf(err error) string {
	var re *resource.Error
	if errors.As(err, &re) {
		return re.Kind.String()
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	if err == nil {
		return "unknown"
	}
	return fmt.Sprint(reflect.TypeOf(err))
}
