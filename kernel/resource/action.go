package resource

import (
	"context"

	"platform/kernel/store"
)

// Action is a custom operation: POST /{plural}/:id/actions/<name>.
type Action struct {
	Name  string
	Title string
	Right string // defaults to <module>.<entity>.edit
	// Event is the verb of the event emitted on success (<plural>.<Event>).
	Event string
	// Body declares the accepted body; nil means no body (an empty object is accepted).
	Body []Field
	// AllowMissing runs the action even when the record is gone (Record is
	// nil), so an action that removes its record can be retried.
	AllowMissing bool
	// Short serves the action at POST /{plural}/:id/<name> too, and links
	// it there in meta.actions: the form the specification gives for some
	// (POST .../references/<id>/copy).
	Short bool
	// Accepted actions hand their work to a workflow and answer 202
	// Accepted (the record showing the work under way) instead of 200.
	Accepted bool
	Run      func(ctx context.Context, call *ActionCall) (*ActionResult, error)
}

// ActionCall is what an action receives. Its writes go through Service
// (Apply for a change of the record), which keeps the bookkeeping fields.
type ActionCall struct {
	Resource *Resource
	ID       string
	Record   store.Doc // the record as the caller may see it
	Body     store.Doc
	Service  *Service
}

// ActionResult is an action's answer. EventData is the event's data; when
// nil and Payload is a record, the record is used.
type ActionResult struct {
	Payload   any
	EventData store.Doc
	NoEvent   bool // the action changed nothing (an idempotent retry)
}
