package marketing

import (
	"context"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// History is the mail sent to consumers (the mail logs), as the CRM sees
// it: anonymizing a consumer redacts its address, merging moves its mail.
type History struct {
	Service *resource.Service
}

func (h History) logs() *resource.Resource { return h.Service.Registry.Get("marketing", "maillogs") }

// Redact replaces the consumer's address with alias in every mail log of
// the consumer or sent to its address.
func (h History) Redact(ctx context.Context, consumer, email, alias string) error {
	redact := resource.Change{Set: store.Doc{"to": alias}}
	if _, err := h.Service.ApplyAll(ctx, h.logs(), query.Eq("consumer", consumer), redact); err != nil {
		return err
	}
	if email == "" {
		return nil
	}
	_, err := h.Service.ApplyAll(ctx, h.logs(), query.Eq("to", email), redact)
	return err
}

// Reassign moves the mail logs of one consumer to another.
func (h History) Reassign(ctx context.Context, from, to string) error {
	_, err := h.Service.ApplyAll(ctx, h.logs(), query.Eq("consumer", from), resource.Change{Set: store.Doc{"consumer": to}})
	return err
}
