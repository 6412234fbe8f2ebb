package resource

import (
	"context"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Hooks let a resource add rules the declaration cannot express.
type Hooks struct {
	// Prepare runs on a client's body before field validation, so values
	// the body carries inside another field (a wiki page's front matter)
	// are validated as if the client had sent them.
	Prepare func(body map[string]any) (map[string]any, error)
	// BeforeWrite runs on create (w.Old == nil) and update, after field
	// validation and before storing; it may change w.New or reject.
	BeforeWrite func(ctx context.Context, w *Write) error
	// ReadFilter restricts what the caller may see (nil: everything).
	ReadFilter func(ctx context.Context) query.Expr
	// Present adds virtual fields to a record on its way out.
	Present func(doc store.Doc)
	// AfterWrite runs after a create or update is stored (old is nil on
	// create) and before its event: work that must see the saved record,
	// such as signalling a workflow that reads it. An error fails the
	// call although the record is saved, so the caller retries it.
	AfterWrite func(ctx context.Context, s *Service, saved, old store.Doc) error
	// BeforeDelete may refuse to delete a record (a knowledge base that
	// still has pages).
	BeforeDelete func(ctx context.Context, s *Service, old store.Doc) error
	// AfterDelete runs after a record is deleted.
	AfterDelete func(ctx context.Context, s *Service, old store.Doc) error
}

// Write is a record on its way into the store.
type Write struct {
	Old     store.Doc // nil on create
	New     store.Doc
	Service *Service
	// Once holds values shown in this write's answer only: never stored,
	// never in the event (a client secret shown once).
	Once store.Doc
	// Emit names further verbs the service emits with the saved record,
	// after its created or updated event (tasks.assigned when a write
	// sets assignedTo).
	Emit []string
}
