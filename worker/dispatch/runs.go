package dispatch

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"platform/kernel/events"
	"platform/workflows/contract"
)

// Pipeline runs are Temporal workflows, so starting them is bounded by the
// Temporal server's rate. They start in the background, a few at a time per
// customer, so a customer's burst of triggered runs delays neither its own
// webhook deliveries nor another customer's runs.
const (
	runStartsPerCustomer = 4
	runStartsTotal       = 32
	runStartTries        = 3
)

type atomicCount = atomic.Int32

// runSlots bound the run starts in flight.
type runSlots struct {
	mu    sync.Mutex
	per   map[string]chan struct{}
	total chan struct{}
}

func (s *runSlots) customer(c string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.per == nil {
		s.per, s.total = map[string]chan struct{}{}, make(chan struct{}, runStartsTotal)
	}
	ch, ok := s.per[c]
	if !ok {
		ch = make(chan struct{}, runStartsPerCustomer)
		s.per[c] = ch
	}
	return ch
}

func (s *runSlots) all() chan struct{} {
	s.customer("") // makes total
	return s.total
}

// launchRuns starts the runs of the events' triggered pipelines in the
// background; each event's run target finishes when they are started.
func (d *Dispatcher) launchRuns(ctx context.Context, evs []*eventJob) {
	if len(evs) == 0 {
		return
	}
	d.lanes.track()
	go func() {
		defer d.lanes.untrack()
		per, all := d.runs.customer(evs[0].customer), d.runs.all()
		for _, ev := range evs {
			per <- struct{}{}
			all <- struct{}{}
			d.lanes.track()
			go func() {
				defer func() { <-all; <-per; d.lanes.untrack() }()
				d.launchOne(ctx, ev)
			}()
		}
	}()
}

// launchOne starts an event's runs, trying a few times; an event whose
// runs cannot be started is given up, for a later sweep to dispatch again.
func (d *Dispatcher) launchOne(ctx context.Context, ev *eventJob) {
	var err error
	for try := 0; try < runStartTries; try++ {
		_, err = d.Deliveries.LaunchEventRuns(ctx, contract.LaunchEventRunsInput{EventID: ev.id, Event: ev.event.Name})
		if err == nil {
			ev.finish()
			return
		}
		if ctx.Err() != nil || !sleepCtx(ctx, time.Duration(try+1)*time.Second) {
			break
		}
	}
	d.abandon(ctx, ev, fmt.Errorf("start the pipeline runs of event %s: %w", ev.id, err))
}

// abandon gives an event up: its claim is released so a sweep dispatches
// it again after the grace (its deliveries made so far are repeated: at
// least once).
func (d *Dispatcher) abandon(ctx context.Context, ev *eventJob, cause error) {
	if !ev.abandoned.CompareAndSwap(false, true) {
		return
	}
	d.inflight.add(ev.customer, -1)
	if ctx.Err() == nil {
		d.fault(ctx, ev.customer, "launch pipeline runs", cause)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := events.Release(withCustomer(rctx, ev.customer), d.Store, d.owner, []string{ev.id}); err != nil {
		d.Log.WarnContext(ctx, "release event claim", "event", ev.id, "error", err)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
