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

// sweepAll claims, customer by customer, events older than the grace that
// nobody claimed, one batch per customer per sweep so a large backlog of
// one customer does not hold up the others' (a sweep that found a full
// batch comes back at once).
func (d *Dispatcher) sweepAll(ctx context.Context) {
	customers, err := d.customers(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.Log.WarnContext(ctx, "event sweep: list customers", "error", err)
		}
		return
	}
	full := false
	for _, c := range customers {
		if d.inflight.total() >= int64(d.Limits.Backlog) {
			return
		}
		full = d.sweepCustomer(ctx, c, time.Now().Add(-d.Limits.Grace)) || full
	}
	if full {
		d.metrics.sweptFull.Inc()
	}
}

// sweepCustomer claims and dispatches one batch of the customer's
// claimable events stored before cutoff, in the background; true when the
// batch was full. A customer with a batch under way is skipped.
func (d *Dispatcher) sweepCustomer(ctx context.Context, customer string, cutoff time.Time) bool {
	ids, err := events.Overdue(tenant.WithCustomer(ctx, customer), d.Store, cutoff, d.Limits.Batch)
	if err != nil {
		d.fault(ctx, customer, "event sweep", err)
		return false
	}
	if len(ids) == 0 || !d.hot.claimBusy(customer) {
		return false
	}
	d.lanes.track()
	go func() {
		defer d.lanes.untrack()
		defer d.hot.done(customer)
		d.dispatchIDs(ctx, customer, ids)
	}()
	return len(ids) == d.Limits.Batch
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

// SweepOnce sweeps every customer once (tests; Run sweeps on its own).
func (d *Dispatcher) SweepOnce(ctx context.Context) { d.sweepAll(ctx) }
