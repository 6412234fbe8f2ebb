package dispatch

import (
	"context"
	"errors"
	"net"
	"time"

	"go.temporal.io/api/serviceerror"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// sweepAll starts, for every customer with events older than the grace
// that nobody claimed, a drain of them.
func (d *Dispatcher) sweepAll(ctx context.Context) {
	customers, err := d.customers(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.Log.WarnContext(ctx, "event sweep: list customers", "error", err)
		}
		return
	}
	d.sweeps++
	checkRetriers := d.sweeps%retrierCheckEvery == 1 && d.Deliveries != nil
	for _, c := range customers {
		if checkRetriers {
			d.startOverdueRetriers(ctx, c)
		}
		if d.inflight.total() < int64(d.Limits.Backlog) {
			d.sweepCustomer(ctx, c, time.Now().Add(-d.Limits.Grace))
		}
	}
}

// retrierCheckEvery: every that many sweeps (30 s by default) the
// customers' retry queues are checked for deliveries whose retrier
// stopped or never started (a process died between queueing and start).
const retrierCheckEvery = 6

func (d *Dispatcher) startOverdueRetriers(ctx context.Context, customer string) {
	if _, err := d.Deliveries.StartOverdueRetriers(tenant.WithCustomer(ctx, customer), time.Now()); err != nil {
		d.fault(ctx, customer, "start overdue retriers", err)
	}
}

// sweepCustomer drains the customer's claimable events stored before
// cutoff in the background, a batch at a time, unless a drain of the
// customer is under way already. It runs beside the customer's fast path
// (claims keep them apart), so new events are not queued behind a
// backlog. It claims ahead at most claimAhead events of the customer:
// what this process cannot deliver soon stays claimable, so the other
// worker processes share a backlog, and one customer's backlog leaves this
// process room for the others.
func (d *Dispatcher) sweepCustomer(ctx context.Context, customer string, cutoff time.Time) {
	if !d.draining.start(customer) {
		return
	}
	d.lanes.track()
	go func() {
		defer d.lanes.untrack()
		defer d.draining.stop(customer)
		for d.roomFor(ctx, customer) && d.drainBatch(ctx, customer, cutoff) {
			d.metrics.sweptFull.Inc()
		}
	}()
}

// claimAhead bounds the events of one customer a drain holds unfinished.
func (d *Dispatcher) claimAhead() int64 { return int64(2 * d.Limits.Batch) }

// roomFor waits until the customer holds fewer than claimAhead events and
// the process fewer than its backlog; false when ctx ends first.
func (d *Dispatcher) roomFor(ctx context.Context, customer string) bool {
	for d.inflight.of(customer) >= d.claimAhead() || d.inflight.total() >= int64(d.Limits.Backlog) {
		if !sleepCtx(ctx, 20*time.Millisecond) {
			return false
		}
	}
	return true
}

// drainBatch claims and dispatches one batch; true when it was full.
func (d *Dispatcher) drainBatch(ctx context.Context, customer string, cutoff time.Time) bool {
	ids, err := events.Overdue(tenant.WithCustomer(ctx, customer), d.Store, cutoff, d.Limits.Batch)
	if err != nil {
		d.fault(ctx, customer, "event sweep", err)
		return false
	}
	d.dispatchIDs(ctx, customer, ids)
	return len(ids) == d.Limits.Batch && ctx.Err() == nil
}

// customers lists every customer id, a page at a time.
func (d *Dispatcher) customers(ctx context.Context) ([]string, error) {
	const page = 1000
	var out []string
	for skip := int64(0); ; skip += page {
		ids, err := d.Customers.CustomerIDs(ctx, skip, page)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
		if len(ids) < page {
			return out, nil
		}
	}
}

// fault logs a customer's failed dispatch step and files it as a Bug task,
// unless the store or Temporal was out of reach or the dispatcher is
// stopping (none of them a defect of the code; a later pass retries).
func (d *Dispatcher) fault(ctx context.Context, customer, where string, err error) {
	if ctx.Err() != nil {
		return
	}
	d.Log.WarnContext(ctx, "event dispatch: "+where, "customer", customer, "error", err)
	if d.Bugs == nil || transient(err) {
		return
	}
	d.Bugs.ReportBug(tenant.WithCustomer(ctx, customer), "dispatch-"+customer, "event dispatcher, "+where, err)
}

// transient errors are a dependency out of reach, which a later pass
// retries.
func transient(err error) bool {
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var netErr net.Error
	return errors.Is(err, store.ErrUnavailable) || errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &netErr)
}

// SweepOnce sweeps every customer once and waits for the drains it
// started (tests; Run sweeps on its own).
func (d *Dispatcher) SweepOnce(ctx context.Context) {
	d.sweepAll(ctx)
	d.lanes.wait()
}
