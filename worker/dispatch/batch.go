package dispatch

import (
	"context"
	"sync/atomic"
	"time"

	"platform/activities/delivery"
	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/runs"
	"platform/modules/automation/webhook"
	"platform/modules/config/notification"
)

// drainHot starts a batch for every customer with waiting events and no
// batch under way, while the process holds fewer events than its backlog.
func (d *Dispatcher) drainHot(ctx context.Context) {
	for d.inflight.total() < int64(d.Limits.Backlog) {
		customer, evs, ok := d.hot.take(d.Limits.Batch)
		if !ok {
			return
		}
		d.lanes.track()
		go func() {
			defer d.lanes.untrack()
			defer d.hot.done(customer)
			d.dispatchKnown(ctx, customer, evs)
			d.poke() // more may have come for this customer meanwhile
		}()
	}
}

func (d *Dispatcher) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// dispatchIDs claims ids of the customer and dispatches what it got.
func (d *Dispatcher) dispatchIDs(ctx context.Context, customer string, ids []string) {
	d.dispatchClaimed(ctx, customer, ids, nil)
}

// dispatchKnown is dispatchIDs for events this process stored: when it
// claims them all, it has them already and reads nothing back.
func (d *Dispatcher) dispatchKnown(ctx context.Context, customer string, evs []events.Event) {
	ids, docs := make([]string, len(evs)), make([]store.Doc, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
		docs[i] = store.Doc{"_id": e.ID, "name": e.Name, "timestamp": e.Timestamp, "data": e.Data}
	}
	d.dispatchClaimed(ctx, customer, ids, docs)
}

func (d *Dispatcher) dispatchClaimed(ctx context.Context, customer string, ids []string, known []store.Doc) {
	cctx := tenant.WithCustomer(ctx, customer)
	n, err := events.Claim(cctx, d.Store, d.owner, ids, d.Limits.Lease)
	if err != nil {
		d.fault(ctx, customer, "claim events", err)
		return
	}
	docs := known
	racy := events.RacyUpdates(d.Store)
	if n != len(ids) || known == nil || racy {
		if docs, err = events.Claimed(cctx, d.Store, d.owner, ids); err != nil {
			d.fault(ctx, customer, "read claimed events", err)
			return
		}
	}
	if racy {
		if docs, err = events.ConfirmClaims(cctx, d.Store, d.owner, docs); err != nil {
			d.fault(ctx, customer, "confirm event claims", err)
			return
		}
	}
	if err := d.dispatchBatch(cctx, customer, docs); err != nil {
		d.fault(ctx, customer, "dispatch events", err)
	}
}

// dispatchBatch hands every claimed event to its targets: a job per
// matching active webhook into the webhook's lane, and the runs of the
// pipelines it triggers. An event is finished (then marked dispatched)
// when all of them are.
func (d *Dispatcher) dispatchBatch(ctx context.Context, customer string, docs []store.Doc) error {
	if len(docs) == 0 {
		return nil
	}
	hooks, err := d.Store.Collection(webhook.Collection).Find(ctx, store.FindOptions{Filter: query.Eq("active", true)})
	if err != nil {
		return d.release(ctx, docs, err)
	}
	// One active pipeline is enough to know: a limited find, not a count
	// (which scans the collection on some stores).
	pipes, err := d.Store.Collection(runs.Pipelines).Find(ctx, store.FindOptions{Filter: query.Eq("active", true), Limit: 1, Fields: []string{"_id"}})
	if err != nil {
		return d.release(ctx, docs, err)
	}
	// Notification routes are matched with the runs (LaunchEventRuns).
	routes, err := d.Store.Collection(notification.Routes).Find(ctx, store.FindOptions{Filter: query.Eq("enabled", true), Limit: 1, Fields: []string{"_id"}})
	if err != nil {
		return d.release(ctx, docs, err)
	}
	if err := d.feedAggregation(ctx, docs); err != nil {
		return d.release(ctx, docs, err)
	}
	d.inflight.add(customer, len(docs))
	var launches []*eventJob
	for _, doc := range docs {
		ev := newEventJob(d, customer, doc)
		targets := matching(hooks, ev.event.Name)
		ev.pending.Store(int32(len(targets)) + 1) // +1: its runs, launched below
		for _, h := range targets {
			d.lanes.submit(ctx, job{ev: ev, hook: h})
		}
		if len(pipes) > 0 || len(routes) > 0 {
			launches = append(launches, ev)
		} else {
			ev.finish()
		}
	}
	d.launchRuns(ctx, launches)
	return nil
}

// release gives up the claims of a batch that could not start, so the
// next sweep takes it again, and returns err.
func (d *Dispatcher) release(ctx context.Context, docs []store.Doc, err error) error {
	ids := make([]string, len(docs))
	for i, doc := range docs {
		ids[i], _ = doc["_id"].(string)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if rerr := events.Release(rctx, d.Store, d.owner, ids); rerr != nil {
		d.Log.WarnContext(ctx, "release event claims", "error", rerr)
	}
	return err
}

// matching are the hooks whose events filter selects name.
func matching(hooks []store.Doc, name string) []store.Doc {
	var out []store.Doc
	for _, h := range hooks {
		if events.Matches(store.Strings(h["events"]), name) {
			out = append(out, h)
		}
	}
	return out
}

// eventJob is a claimed event and the count of its targets not finished.
type eventJob struct {
	d        *Dispatcher
	customer string
	id       string
	event    delivery.Event
	pending  atomicCount
	// abandoned: given up for a later sweep; it is never marked dispatched
	abandoned atomic.Bool
	// retake: claimed before (its claimer died or lost the lease)
	retake bool
}

func newEventJob(d *Dispatcher, customer string, doc store.Doc) *eventJob {
	e := &eventJob{d: d, customer: customer}
	e.id, _ = doc["_id"].(string)
	e.event = delivery.EventOf(doc)
	e.retake = events.Retaken(doc)
	return e
}

// finish ends one target; the last one queues the event's dispatched mark.
func (e *eventJob) finish() {
	if e.pending.Add(-1) == 0 && !e.abandoned.Load() {
		e.d.out.markDispatched(e.customer, e.id, e.event.Timestamp)
	}
}
