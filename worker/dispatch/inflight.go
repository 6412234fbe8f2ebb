package dispatch

import (
	"context"
	"sync"
	"time"

	"platform/kernel/events"
	"platform/kernel/tenant"
)

// inflight counts the events each customer has claimed here and not
// finished: the backlog bound, and whose claims to renew.
type inflight struct {
	mu  sync.Mutex
	per map[string]int64
	sum int64
}

func (f *inflight) add(customer string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.per == nil {
		f.per = map[string]int64{}
	}
	f.per[customer] += int64(n)
	f.sum += int64(n)
	if f.per[customer] <= 0 {
		delete(f.per, customer)
	}
}

func (f *inflight) total() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sum
}

func (f *inflight) of(customer string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.per[customer]
}

func (f *inflight) customers() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.per))
	for c := range f.per {
		out = append(out, c)
	}
	return out
}

// renewLoop renews this process's claims a few times per lease, so events
// with slow deliveries stay ours.
func (d *Dispatcher) renewLoop(ctx context.Context) {
	t := time.NewTicker(d.Limits.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, c := range d.inflight.customers() {
				if err := events.RenewClaims(tenant.WithCustomer(ctx, c), d.Store, d.owner, d.Limits.Lease); err != nil {
					d.fault(ctx, c, "renew event claims", err)
				}
			}
			d.lanes.prune(10 * time.Minute)
		}
	}
}

// releaseAll gives up the claims of events not finished when the
// dispatcher stops, so another process takes them without waiting for
// the lease to run out.
func (d *Dispatcher) releaseAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range d.inflight.customers() {
		if err := events.ReleaseAll(tenant.WithCustomer(ctx, c), d.Store, d.owner); err != nil {
			d.Log.Warn("release event claims", "customer", c, "error", err)
		}
	}
}

func withCustomer(ctx context.Context, c string) context.Context { return tenant.WithCustomer(ctx, c) }
