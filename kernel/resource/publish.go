package resource

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Publishing configures the Run of a publish or unpublish action.
type Publishing struct {
	// Refuse, when set, may refuse to publish the record (a page whose
	// last render failed).
	Refuse func(record store.Doc) error
	// After runs once the change is stored (tell the page's render).
	After func(ctx context.Context, id string) error
}

// SetPublished is the Run of a publish (on) or unpublish action: it sets
// published and, on publish, publishedAt. A repeat changes nothing and
// emits nothing, so a retried call is harmless.
func (p Publishing) SetPublished(on bool) func(context.Context, *ActionCall) (*ActionResult, error) {
	return func(ctx context.Context, call *ActionCall) (*ActionResult, error) {
		if call.Record["published"] == on {
			return &ActionResult{Payload: call.Record, NoEvent: true}, nil
		}
		if on && p.Refuse != nil {
			if err := p.Refuse(call.Record); err != nil {
				return nil, err
			}
		}
		c := Change{Set: store.Doc{"published": on}}
		if on {
			c.Set["publishedAt"] = time.Now().UTC().Truncate(time.Millisecond)
		}
		rec, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), c)
		if err == nil && p.After != nil {
			err = p.After(ctx, call.ID)
		}
		if err != nil {
			return nil, err
		}
		return &ActionResult{Payload: rec}, nil
	}
}
