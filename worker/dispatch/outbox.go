package dispatch

import (
	"context"
	"sync"
	"time"

	"platform/activities/delivery"
	"platform/kernel/events"
	"platform/kernel/tenant"
)

// flushEvery is how often finished events are marked dispatched and
// failed deliveries handed to their retriers, in one store write per
// customer and kind rather than one per event.
const flushEvery = 20 * time.Millisecond

// outbox collects the dispatcher's writes between flushes.
type outbox struct {
	mu      sync.Mutex
	marks   map[string][]mark
	retries map[string][]pendingRetry
	// pausedUntil holds back a customer's writes after one failed, so an
	// unreachable store is not hammered every flush.
	pausedUntil map[string]time.Time
}

// failPause is how long a customer's writes wait after a failed one.
const failPause = time.Second

func (o *outbox) paused(customer string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return time.Now().Before(o.pausedUntil[customer])
}

func (o *outbox) pause(customer string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pausedUntil == nil {
		o.pausedUntil = map[string]time.Time{}
	}
	o.pausedUntil[customer] = time.Now().Add(failPause)
}

type mark struct {
	id string
	at time.Time // the event's time, for the lag figure
}

type pendingRetry struct {
	j         job
	first     *delivery.Outcome
	notBefore time.Time // no first attempt before (spilled by an open circuit)
}

// markDispatched queues an event whose targets are all finished.
func (o *outbox) markDispatched(customer, id string, at time.Time) {
	o.requeueMarks(customer, []mark{{id, at}})
}

// retry queues a delivery for its webhook's retrier; first is its failed
// first attempt, nil when none was made.
func (o *outbox) retry(j job, first *delivery.Outcome) {
	o.requeueRetries(j.ev.customer, []pendingRetry{{j: j, first: first}})
}

// spill queues a delivery no first attempt was made for, to be tried
// not before notBefore.
func (o *outbox) spill(j job, notBefore time.Time) {
	o.requeueRetries(j.ev.customer, []pendingRetry{{j: j, notBefore: notBefore}})
}

// run flushes until ctx ends, then once more with a fresh context.
func (o *outbox) run(ctx context.Context, d *Dispatcher) {
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			o.flush(fctx, d)
			return
		case <-t.C:
			o.flush(ctx, d)
		}
	}
}

// flush writes the retries first (their events finish when they are
// queued), then the marks.
func (o *outbox) flush(ctx context.Context, d *Dispatcher) {
	retries := o.takeRetries()
	for customer, list := range retries {
		if o.paused(customer) && ctx.Err() == nil {
			o.requeueRetries(customer, list)
			continue
		}
		o.flushRetries(ctx, d, customer, list)
	}
	marks := o.takeMarks()
	for customer, list := range marks {
		if o.paused(customer) && ctx.Err() == nil {
			o.requeueMarks(customer, list)
			continue
		}
		o.flushMarks(ctx, d, customer, list)
	}
}

func (o *outbox) takeRetries() map[string][]pendingRetry { return take(&o.mu, &o.retries) }
func (o *outbox) takeMarks() map[string][]mark           { return take(&o.mu, &o.marks) }

func (o *outbox) requeueRetries(customer string, list []pendingRetry) {
	push(&o.mu, &o.retries, customer, list)
}

func (o *outbox) requeueMarks(customer string, list []mark) { push(&o.mu, &o.marks, customer, list) }

// take empties a per-customer queue of the outbox and returns what it held.
func take[T any](mu *sync.Mutex, q *map[string][]T) map[string][]T {
	mu.Lock()
	defer mu.Unlock()
	out := *q
	*q = nil
	return out
}

// push appends to a customer's list in a per-customer queue of the outbox.
func push[T any](mu *sync.Mutex, q *map[string][]T, customer string, list []T) {
	mu.Lock()
	defer mu.Unlock()
	if *q == nil {
		*q = map[string][]T{}
	}
	(*q)[customer] = append((*q)[customer], list...)
}

// flushRetries hands a customer's failed deliveries to their retriers. A
// failed hand-over is kept for the next flush: the events stay claimed
// (and renewed) meanwhile, so nothing is lost.
func (o *outbox) flushRetries(ctx context.Context, d *Dispatcher, customer string, list []pendingRetry) {
	failed := make([]delivery.Failed, len(list))
	for i, p := range list {
		failed[i] = delivery.Failed{EventID: p.j.ev.id, Event: p.j.ev.event.Name, WebhookID: p.j.hookID(), First: p.first, NotBefore: p.notBefore}
	}
	if err := d.Deliveries.QueueRetries(tenant.WithCustomer(ctx, customer), failed); err != nil {
		d.fault(ctx, customer, "hand deliveries to their retriers", err)
		o.pause(customer)
		o.requeueRetries(customer, list)
		return
	}
	for _, p := range list {
		p.j.ev.finish()
	}
}

// flushMarks marks a customer's finished events dispatched. A failed write
// is retried at the next flush.
func (o *outbox) flushMarks(ctx context.Context, d *Dispatcher, customer string, list []mark) {
	ids := make([]string, len(list))
	for i, m := range list {
		ids[i] = m.id
	}
	if err := events.MarkManyDispatched(tenant.WithCustomer(ctx, customer), d.Store, ids); err != nil {
		d.fault(ctx, customer, "mark events dispatched", err)
		o.pause(customer)
		o.requeueMarks(customer, list)
		return
	}
	d.inflight.add(customer, -len(list))
	for _, m := range list {
		d.metrics.dispatched(m.at)
	}
}
