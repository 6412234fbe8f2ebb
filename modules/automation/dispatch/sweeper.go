package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"go.temporal.io/api/serviceerror"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
)

// Sweeper defaults.
const (
	DefaultEvery = 5 * time.Second
	DefaultGrace = 10 * time.Second
	DefaultBatch = 100
)

// Sweeper starts the dispatch of events that are still not dispatched
// Grace after they were stored. Every worker replica may run one: the
// workflow ids are deterministic, so a second replica's start is a no-op.
// Events are scoped to their customer in every store, so it sweeps
// customer by customer.
type Sweeper struct {
	Store   store.Store
	Starter *temporalx.Starter
	Log     *slog.Logger
	// Customers lists the customers to sweep (identity.Service).
	Customers interface {
		CustomerIDs(ctx context.Context, skip, limit int64) ([]string, error)
	}
	// Bugs files a customer's sweep that failed for a reason other than
	// an unreachable store as a Bug task (crm's bugs.Recorder); nil: logs only.
	Bugs interface {
		ReportBug(ctx context.Context, debugID, where string, cause error)
	}
	Every time.Duration // pause between sweeps
	Grace time.Duration // younger events are the notifier's
	Batch int           // events read per customer and sweep
}

// Run sweeps until ctx ends.
func (s *Sweeper) Run(ctx context.Context) {
	t := time.NewTicker(or(s.Every, DefaultEvery))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// A sweep that started work may have more behind it: go on at once.
		for {
			n, err := s.Sweep(ctx)
			if err != nil && ctx.Err() == nil {
				s.Log.WarnContext(ctx, "event sweep failed", "error", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
	}
}

// Sweep starts the dispatch of overdue events, up to Batch per customer,
// and reports how many it started. Each customer's query is the cheap one:
// dispatched=false with a limit, unsorted, served by the events' index on
// (customer, dispatched).
func (s *Sweeper) Sweep(ctx context.Context) (int, error) {
	customers, err := s.customers(ctx)
	if err != nil {
		return 0, err
	}
	started := 0
	var first error
	for _, c := range customers {
		n, err := s.sweepCustomer(ctx, c)
		started += n
		if err != nil {
			s.fault(ctx, c, err)
		}
		if err != nil && first == nil {
			first = err // one customer's failure must not hold up the others
		}
	}
	return started, first
}

// customers lists every customer id, a page at a time.
func (s *Sweeper) customers(ctx context.Context) ([]string, error) {
	const page = 1000
	var out []string
	for skip := int64(0); ; skip += page {
		ids, err := s.Customers.CustomerIDs(ctx, skip, page)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
		if len(ids) < page {
			return out, nil
		}
	}
}

// fault files a customer's failed sweep as a Bug task, unless the store
// or Temporal was out of reach or the sweeper is stopping (none of them is
// a defect of the code; the log has them).
func (s *Sweeper) fault(ctx context.Context, customer string, err error) {
	if s.Bugs == nil || ctx.Err() != nil || transient(err) {
		return
	}
	s.Bugs.ReportBug(tenant.WithCustomer(ctx, customer), "sweep-"+customer, "event sweeper", err)
}

func (s *Sweeper) sweepCustomer(ctx context.Context, customer string) (int, error) {
	pending, err := events.Undispatched(ctx, s.Store, customer, orInt(s.Batch, DefaultBatch))
	if err != nil {
		return 0, err
	}
	cutoff := time.Now().Add(-or(s.Grace, DefaultGrace))
	started := 0
	for _, ev := range pending {
		if ev.Timestamp.After(cutoff) {
			continue // the notifier's
		}
		ok, err := Dispatch(ctx, s.Store, s.Starter, customer, ev.ID, ev.Name)
		if err != nil {
			return started, err
		}
		if ok {
			started++
		}
	}
	return started, nil
}

// transient errors are a dependency out of reach, which a later sweep
// retries.
func transient(err error) bool {
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var netErr net.Error
	return errors.Is(err, store.ErrUnavailable) || errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &netErr)
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func orInt(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}
