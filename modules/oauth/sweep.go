package oauth

import (
	"context"
	"fmt"
	"slices"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Sweeper removes what the token service keeps past its use: codes, PKCE
// sessions, browser sessions, access-token records (the revocation list's
// entries), refresh tokens, revoked-family marks and sign-in counts. Nothing
// else removes them, so without it these collections grow with every
// sign-in. A Temporal schedule runs it (workflows.OAuthSweep); every
// replica may, as each delete re-checks its condition.
type Sweeper struct {
	Store store.Store
	// Grace keeps a record this long past its expiry, so that a code or
	// token presented again soon after is still recognised (a reused code
	// revokes its family; a revoked token stays "revoked", not "unknown").
	// Default 1 h.
	Grace time.Duration
	// RefreshTTL is how long a refresh token lives: a revoked family's
	// mark is kept until no token of the family can be alive.
	RefreshTTL time.Duration
	// Forget is when a sign-in count stops counting (Throttle.Forget).
	Forget time.Duration
	// Also are more global collections whose records carry their expiry
	// in expiresAt (the admin console's sessions), swept and indexed the
	// same way, so no module sweeps its own on a request's path.
	Also []string
	// Batch is how many documents one delete removes (default 500), and
	// MaxBatches how many deletes one Sweep makes per collection (default
	// 20), so one call stays short and never holds the store for long.
	Batch, MaxBatches int
}

// EnsureIndexes indexes the fields Sweep selects by, so that a sweep reads
// only what it removes.
func (sw *Sweeper) EnsureIndexes(ctx context.Context) error {
	fields := map[string]string{GrantsCollection: "revokedAt", AttemptsCollection: "last"}
	for _, c := range sw.expiring() {
		fields[c] = "expiresAt"
	}
	for coll, field := range fields {
		idx := []store.Index{{Name: "by_" + field, Keys: []store.SortField{{Field: field}}}}
		if err := sw.Store.EnsureIndexes(ctx, coll, false, idx); err != nil {
			return fmt.Errorf("index %s.%s: %w", coll, field, err)
		}
	}
	return nil
}

// expiring are the collections whose records carry their expiry.
var expiring = []string{CodesCollection, PKCECollection, SessionsCollection, AccessCollection, RefreshCollection}

func (sw *Sweeper) expiring() []string { return append(slices.Clip(expiring), sw.Also...) }

// Sweep removes, in batches, what expired before now and reports how many
// documents each collection lost; more says some collection still holds
// expired documents (call again). A refresh token is removed once it
// expired itself: presented later it is answered like an unknown token
// (invalid_grant) without revoking its family, which may go on through
// its newer tokens.
func (sw *Sweeper) Sweep(ctx context.Context, now time.Time) (removed map[string]int64, more bool, err error) {
	removed = map[string]int64{}
	for coll, filter := range sw.expired(now.UTC()) {
		n, left, err := sw.remove(ctx, coll, filter)
		removed[coll] = n
		if err != nil {
			return removed, more, fmt.Errorf("sweep %s: %w", coll, err)
		}
		more = more || left
	}
	return removed, more, nil
}

// expired is the filter of what may go, per collection.
func (sw *Sweeper) expired(now time.Time) map[string]query.Expr {
	grace := orDefault(sw.Grace, time.Hour)
	out := map[string]query.Expr{
		GrantsCollection:   before("revokedAt", now.Add(-sw.RefreshTTL-grace)),
		AttemptsCollection: forgotten(now, sw.Forget),
	}
	for _, c := range sw.expiring() {
		out[c] = before("expiresAt", now.Add(-grace))
	}
	return out
}

// forgotten matches sign-in counts that no longer count nor wait, and those
// a claim created but never counted (their attempt lost a race).
func forgotten(now time.Time, forget time.Duration) query.Expr {
	return query.Or{Exprs: []query.Expr{
		query.AllOf(before("last", now.Add(-forget)), before("until", now)),
		query.Field{Path: "last", Conds: []query.Cond{query.Exists{Want: false}}},
	}}
}

func before(field string, t time.Time) query.Expr {
	return query.Field{Path: field, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: t}}}
}

// remove deletes the documents of coll matching filter, a batch at a time,
// at most MaxBatches times; left says a full last batch may have more
// behind it. Each delete repeats the filter, so a document that changed
// since it was found (a sign-in count that just counted again) stays.
func (sw *Sweeper) remove(ctx context.Context, coll string, filter query.Expr) (int64, bool, error) {
	c := sw.Store.Global(coll)
	batch := orDefault(sw.Batch, 500)
	var total int64
	for range orDefault(sw.MaxBatches, 20) {
		docs, err := c.Find(ctx, store.FindOptions{Filter: filter, Fields: []string{"_id"}, Limit: int64(batch)})
		if err != nil || len(docs) == 0 {
			return total, false, err
		}
		n, err := c.Delete(ctx, query.AllOf(idIn(docs), filter))
		total += n
		if err != nil || len(docs) < batch {
			return total, false, err
		}
	}
	return total, true, nil
}

func idIn(docs []store.Doc) query.Expr {
	ids := make([]any, len(docs))
	for i, d := range docs {
		ids[i] = d["_id"]
	}
	return query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids}}}
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
