package events

import (
	"context"
	"encoding/hex"
	"errors"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// Subscriptions is the global collection that keeps, per customer, every
// event name or wildcard a webhook or a pipeline trigger has ever asked
// for. An event no pattern selects needs no dispatch workflow: it is
// marked dispatched at once (most writes of most customers), which spares
// Temporal a workflow per write.
//
// The set only grows: adding a pattern is an idempotent $set of its own
// key, so concurrent writers on any replica cannot lose one another's
// patterns, and a pattern is stored before the webhook or trigger that
// needs it is (the hooks run before the write). A pattern left by a
// deleted or inactive subscriber only costs a dispatch that finds nothing.
const Subscriptions = "eventsubscriptions"

// Subscribe records patterns for the customer in ctx.
func Subscribe(ctx context.Context, st store.Store, patterns ...string) error {
	cust, err := tenant.Customer(ctx)
	if err != nil || len(patterns) == 0 {
		return err
	}
	set := store.Doc{"updatedAt": time.Now().UTC().Truncate(time.Millisecond)}
	for _, p := range patterns {
		if p != "" {
			set["patterns."+hex.EncodeToString([]byte(p))] = p
		}
	}
	_, err = st.Global(Subscriptions).Upsert(ctx, cust, store.Update{Set: set})
	return err
}

// Subscribed reports whether any pattern of the customer selects the
// event name.
func Subscribed(ctx context.Context, st store.Store, customer, name string) (bool, error) {
	doc, err := st.Global(Subscriptions).Get(ctx, customer, "patterns")
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	m, _ := doc["patterns"].(map[string]any)
	patterns := make([]string, 0, len(m))
	for _, v := range m {
		if s, ok := v.(string); ok {
			patterns = append(patterns, s)
		}
	}
	return Matches(patterns, name), nil
}

// MarkDispatched sets an event's dispatched flag (of the customer in ctx),
// so the sweeper leaves it alone; a missing event is fine.
func MarkDispatched(ctx context.Context, st store.Store, id string) error {
	_, err := st.Collection(Collection).Update(ctx, query.ID(id), store.Update{
		Set: store.Doc{"dispatched": true, "dispatchedAt": time.Now().UTC().Truncate(time.Millisecond)},
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
