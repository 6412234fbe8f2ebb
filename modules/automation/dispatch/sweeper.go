package dispatch

import (
	"context"
	"log/slog"
	"time"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/identity"
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
	Every   time.Duration // pause between sweeps
	Grace   time.Duration // younger events are the notifier's
	Batch   int           // events read per customer and sweep
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
		docs, err := s.Store.Global(identity.Customers).Find(ctx, store.FindOptions{Fields: []string{"_id"}, Skip: skip, Limit: page})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			out = append(out, d["_id"].(string))
		}
		if len(docs) < page {
			return out, nil
		}
	}
}

func (s *Sweeper) sweepCustomer(ctx context.Context, customer string) (int, error) {
	docs, err := s.Store.Collection(events.Collection).Find(tenant.WithCustomer(ctx, customer), store.FindOptions{
		Filter: query.Eq("dispatched", false), Limit: int64(orInt(s.Batch, DefaultBatch)),
		Fields: []string{"name", "timestamp"},
	})
	if err != nil {
		return 0, err
	}
	cutoff := time.Now().Add(-or(s.Grace, DefaultGrace))
	started := 0
	for _, d := range docs {
		ts, _ := d["timestamp"].(time.Time)
		name, _ := d["name"].(string)
		if ts.After(cutoff) {
			continue // the notifier's
		}
		ok, err := Dispatch(ctx, s.Store, s.Starter, customer, d["_id"].(string), name)
		if err != nil {
			return started, err
		}
		if ok {
			started++
		}
	}
	return started, nil
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
