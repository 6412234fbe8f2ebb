package automation

import (
	"context"
	"fmt"
	"time"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/runs"
	"platform/modules/automation/webhook"
	"platform/workflows/contract"
)

// DefaultSubscriptionGrace is how long a pattern no owner uses stays in
// the event-subscription set after its last Subscribe: far longer than a
// webhook or trigger create takes between its Subscribe and its write.
const DefaultSubscriptionGrace = time.Hour

// Retention removes the records of the automation module's collections
// (and the events they are made from) once they are older than their
// retention, a bounded batch per call. The retention workflow calls it
// per customer (workflows.Retention); nothing else deletes these records.
type Retention struct {
	Store store.Store
	// Events, Deliveries and Runs are how long a dispatched event, a
	// delivery attempt record and a finished run record are kept.
	Events, Deliveries, Runs time.Duration
	// SubscriptionGrace: see DefaultSubscriptionGrace (0 means it).
	SubscriptionGrace time.Duration
}

// EnsureIndexes indexes the fields Prune selects by, so that a prune reads
// only what it removes (events.Indexes covers the events).
func (r *Retention) EnsureIndexes(ctx context.Context) error {
	for coll, field := range map[string]string{webhook.DeliveriesCollection: "createdAt", runs.Runs: "updatedAt"} {
		idx := []store.Index{{Name: "by_" + field, Keys: []store.SortField{{Field: field}}}}
		if err := r.Store.EnsureIndexes(ctx, coll, true, idx); err != nil {
			return fmt.Errorf("index %s.%s: %w", coll, field, err)
		}
	}
	return nil
}

// Prune removes at most limit records of kind (contract.Retain*) of the
// customer that are past their retention at now, and answers how many.
func (r *Retention) Prune(ctx context.Context, customer, kind string, now time.Time, limit int) (int64, error) {
	ctx = tenant.WithCustomer(ctx, customer)
	switch kind {
	case contract.RetainEvents:
		return r.pruneEvents(ctx, now.Add(-r.Events), limit)
	case contract.RetainDeliveries:
		return store.DeleteBatch(ctx, r.Store.Collection(webhook.DeliveriesCollection), olderThan("createdAt", now.Add(-r.Deliveries)), limit)
	case contract.RetainRuns:
		return store.DeleteBatch(ctx, r.Store.Collection(runs.Runs), finishedBefore(now.Add(-r.Runs)), limit)
	}
	return 0, fmt.Errorf("no retention for %q", kind)
}

// pruneEvents keeps, past the retention, the events of parked deliveries:
// a manual retry reads its event, and without it the retry would end
// "skipped" instead of being sent again.
func (r *Retention) pruneEvents(ctx context.Context, before time.Time, limit int) (int64, error) {
	parked, err := r.Store.Collection(webhook.RetriesCollection).Find(ctx, store.FindOptions{Fields: []string{"event"}})
	if err != nil {
		return 0, err
	}
	keep := make([]string, 0, len(parked))
	for _, p := range parked {
		if id, _ := p["event"].(string); id != "" {
			keep = append(keep, id)
		}
	}
	return events.PruneDispatched(ctx, r.Store, before, limit, keep)
}

// finishedBefore matches run records that ended and were last changed
// before t: a run still running is never removed, however old.
func finishedBefore(t time.Time) query.Expr {
	return query.AllOf(
		query.Field{Path: "status", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: runs.StatusRunning}}},
		olderThan("updatedAt", t),
	)
}

func olderThan(field string, t time.Time) query.Expr {
	return query.Field{Path: field, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: t.UTC()}}}
}

// PruneSubscriptions removes from the customer's event-subscription set
// the patterns no webhook, trigger or pipeline uses any more and nobody
// subscribed within the grace period (events.PruneSubscriptions).
func (r *Retention) PruneSubscriptions(ctx context.Context, customer string, now time.Time) (int64, error) {
	grace := r.SubscriptionGrace
	if grace <= 0 {
		grace = DefaultSubscriptionGrace
	}
	n, err := events.PruneSubscriptions(tenant.WithCustomer(ctx, customer), r.Store, now.Add(-grace), r.inUse)
	return int64(n), err
}

// inUse is patternsInUse on the Retention's store.
func (r *Retention) inUse(ctx context.Context) ([]string, error) { return patternsInUse(ctx, r.Store) }
