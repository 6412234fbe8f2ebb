package dispatch

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
)

// HintsCollection holds, per customer, when a process without a
// dispatcher (an API replica) last stored an event: dispatchers read it
// every PollEvery and claim that customer's events at once, instead of
// waiting for the sweep. It is global (one small record per customer).
const HintsCollection = "dispatchhints"

// hintEvery bounds the hint writes of one process per customer.
const hintEvery = 50 * time.Millisecond

// Hinter is the events.Notifier of every process: it hands events to the
// process's own dispatcher once one runs here (platform dev), and leaves a
// hint for the worker processes' dispatchers otherwise.
type Hinter struct {
	Store store.Store
	Log   *slog.Logger
	// Local is this process's dispatcher, set when it starts one.
	Local   atomic.Pointer[Dispatcher]
	mu      sync.Mutex
	last    map[string]time.Time
	once    sync.Once
	writers chan struct{}
}

var _ events.Notifier = (*Hinter)(nil)

// Notify implements events.Notifier. The hint is written in the
// background, so a write's answer never waits for it, at most hintWriters
// at once; a lost hint costs latency, not the event: the sweep finds it.
func (h *Hinter) Notify(ctx context.Context, e events.Event) {
	if d := h.Local.Load(); d != nil && d.started.Load() {
		d.Notify(ctx, e)
		return
	}
	if !h.due(e.Customer) || !h.slot() {
		return
	}
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer func() { <-h.writers }()
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, err := h.Store.Global(HintsCollection).Upsert(ctx, e.Customer, store.Update{Set: store.Doc{"at": time.Now().UTC()}}); err != nil {
			h.Log.WarnContext(ctx, "dispatch hint not written; the sweep dispatches the event", "event", e.ID, "error", err)
		}
	}()
}

// hintWriters bounds the hint writes in flight in one process.
const hintWriters = 16

func (h *Hinter) slot() bool {
	h.once.Do(func() { h.writers = make(chan struct{}, hintWriters) })
	select {
	case h.writers <- struct{}{}:
		return true
	default:
		return false
	}
}

func (h *Hinter) due(customer string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	if h.last == nil {
		h.last = map[string]time.Time{}
	}
	if now.Sub(h.last[customer]) < hintEvery {
		return false
	}
	h.last[customer] = now
	if len(h.last) > 100000 {
		h.last = map[string]time.Time{} // bounded memory; a lost throttle costs one write
	}
	return true
}

// pollHints claims the events of customers hinted since the last poll.
func (d *Dispatcher) pollHints(ctx context.Context) {
	since := d.hintsSeen
	docs, err := d.Store.Global(HintsCollection).Find(ctx, store.FindOptions{
		Filter: query.Field{Path: "at", Conds: []query.Cond{query.Compare{Op: query.OpGte, Value: since}}},
	})
	if err != nil {
		if ctx.Err() == nil {
			d.Log.WarnContext(ctx, "read dispatch hints", "error", err)
		}
		return
	}
	for _, doc := range docs {
		if at, _ := doc["at"].(time.Time); at.After(d.hintsSeen) {
			d.hintsSeen = at
		}
		c, _ := doc["_id"].(string)
		d.sweepCustomer(ctx, c, time.Now())
	}
}
