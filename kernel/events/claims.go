package events

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Claims let several dispatchers (one per worker process) share the
// undispatched events of a customer without delivering one twice: a
// dispatcher claims an event for a lease, renews the lease while the
// event's deliveries are under way, and marks it dispatched when they are
// done. A dispatcher that dies leaves its claims to expire; the event is
// then claimed again (at least once, never lost).
const (
	claimBy    = "claimBy"
	claimUntil = "claimUntil"
)

// Claimable selects the customer's events that are not dispatched and not
// claimed by a live lease.
func claimable(now time.Time) query.Expr {
	return query.AllOf(query.Eq("dispatched", false), query.Or{Exprs: []query.Expr{
		query.Field{Path: claimUntil, Conds: []query.Cond{query.Exists{Want: false}}},
		query.Field{Path: claimUntil, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: now}}},
	}})
}

func idIn(ids []string) query.Expr {
	vals := make([]any, len(ids))
	for i, id := range ids {
		vals[i] = id
	}
	return query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: vals}}}
}

// Claim claims those of ids (events of the customer in ctx) that are free
// for owner until now+lease, and answers how many it claimed: all of them
// when it answers len(ids). Claimed reads what it got.
func Claim(ctx context.Context, st store.Store, owner string, ids []string, lease time.Duration) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	now := time.Now().UTC()
	n, err := st.Collection(Collection).UpdateMany(ctx, query.AllOf(idIn(ids), claimable(now)), store.Update{
		Set: store.Doc{claimBy: owner, claimUntil: now.Add(lease)},
		Inc: map[string]any{claims: int64(1)}, // ConfirmClaims' generation
	})
	return int(n), err
}

// Claimed returns, whole, those of ids that owner holds.
func Claimed(ctx context.Context, st store.Store, owner string, ids []string) ([]store.Doc, error) {
	return st.Collection(Collection).Find(ctx, store.FindOptions{Filter: query.AllOf(idIn(ids), query.Eq("dispatched", false), query.Eq(claimBy, owner))})
}

// Overdue lists up to limit ids of the customer's claimable events stored
// before cutoff (unsorted: the cheap query, served by the index on
// dispatched).
func Overdue(ctx context.Context, st store.Store, cutoff time.Time, limit int) ([]string, error) {
	docs, err := st.Collection(Collection).Find(ctx, store.FindOptions{
		Filter: query.AllOf(claimable(time.Now().UTC()), query.Field{Path: "timestamp", Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: cutoff}}}),
		Limit:  int64(limit), Fields: []string{"_id"},
	})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i], _ = d["_id"].(string)
	}
	return ids, nil
}

// RenewClaims extends every lease owner holds on the customer's events.
func RenewClaims(ctx context.Context, st store.Store, owner string, lease time.Duration) error {
	_, err := st.Collection(Collection).UpdateMany(ctx, query.AllOf(query.Eq("dispatched", false), query.Eq(claimBy, owner)),
		store.Update{Set: store.Doc{claimUntil: time.Now().UTC().Add(lease)}})
	return err
}

// Release gives up owner's claims on ids, so another dispatch may take
// them at once (a dispatch that failed before delivering).
func Release(ctx context.Context, st store.Store, owner string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := st.Collection(Collection).UpdateMany(ctx, query.AllOf(idIn(ids), query.Eq(claimBy, owner)),
		store.Update{Unset: []string{claimBy, claimUntil}})
	return err
}

// MarkManyDispatched sets the dispatched flag of the customer's events ids
// and drops their claims.
func MarkManyDispatched(ctx context.Context, st store.Store, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := st.Collection(Collection).UpdateMany(ctx, idIn(ids), store.Update{
		Set:   store.Doc{"dispatched": true, "dispatchedAt": time.Now().UTC().Truncate(time.Millisecond)},
		Unset: []string{claimBy, claimUntil},
	})
	return err
}

// ReleaseAll gives up every claim owner holds on the customer's events.
func ReleaseAll(ctx context.Context, st store.Store, owner string) error {
	_, err := st.Collection(Collection).UpdateMany(ctx, query.AllOf(query.Eq("dispatched", false), query.Eq(claimBy, owner)),
		store.Update{Unset: []string{claimBy, claimUntil}})
	return err
}
