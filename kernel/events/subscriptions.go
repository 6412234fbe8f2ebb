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
// Adding a pattern is an idempotent $set of its own key, so concurrent
// writers on any replica cannot lose one another's patterns, and a pattern
// is stored before the webhook or trigger that needs it is (the hooks run
// before the write). Each pattern also keeps when it was last subscribed
// (subscribedAt.<key>): PruneSubscriptions removes a pattern no owner uses
// only once that is older than a grace period, which a create still
// between its Subscribe and its write cannot be.
const Subscriptions = "eventsubscriptions"

// Subscribe records patterns for the customer in ctx.
func Subscribe(ctx context.Context, st store.Store, patterns ...string) error {
	cust, err := tenant.Customer(ctx)
	if err != nil || len(patterns) == 0 {
		return err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	set := store.Doc{"updatedAt": now}
	for _, p := range patterns {
		if p != "" {
			key := patternKey(p)
			set["patterns."+key] = p
			set["subscribedAt."+key] = now
		}
	}
	_, err = st.Global(Subscriptions).Upsert(ctx, cust, store.Update{Set: set})
	return err
}

// patternKey is a pattern's key in the set: hex, as a pattern may hold
// dots and other characters a field path cannot.
func patternKey(p string) string { return hex.EncodeToString([]byte(p)) }

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

// PruneSubscriptions removes from the set of the customer in ctx every
// pattern that inUse, asked after the set was read, does not return and
// that nobody subscribed since stale (the grace cut-off); it answers how
// many went. Each removal is a conditional update of that one pattern: a
// Subscribe of it in the meantime (a webhook created while pruning) makes
// it newer than stale, so the update matches nothing and the pattern
// stays. A pattern stored before subscribedAt existed counts from the
// set's updatedAt, which every Subscribe moves.
func PruneSubscriptions(ctx context.Context, st store.Store, stale time.Time, inUse func(context.Context) ([]string, error)) (int, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return 0, err
	}
	coll := st.Global(Subscriptions)
	doc, err := coll.Get(ctx, cust, "patterns")
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	used, err := inUse(ctx)
	if err != nil {
		return 0, err
	}
	keep := make(map[string]bool, len(used))
	for _, p := range used {
		keep[p] = true
	}
	removed := 0
	m, _ := doc["patterns"].(map[string]any)
	for key, v := range m {
		if p, _ := v.(string); keep[p] {
			continue
		}
		gone, err := unsubscribeIfStale(ctx, coll, cust, key, stale.UTC())
		if err != nil {
			return removed, err
		}
		if gone {
			removed++
		}
	}
	return removed, nil
}

// unsubscribeIfStale removes one pattern (by key) when it was last
// subscribed before stale; false when it was subscribed since.
func unsubscribeIfStale(ctx context.Context, coll store.Collection, cust, key string, stale time.Time) (bool, error) {
	at := "subscribedAt." + key
	older := func(path string) query.Expr {
		return query.Field{Path: path, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: stale}}}
	}
	filter := query.AllOf(query.ID(cust), query.Or{Exprs: []query.Expr{
		older(at),
		query.AllOf(query.Field{Path: at, Conds: []query.Cond{query.Exists{Want: false}}}, older("updatedAt")),
	}})
	_, err := coll.Update(ctx, filter, store.Update{Unset: []string{"patterns." + key, at}})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
