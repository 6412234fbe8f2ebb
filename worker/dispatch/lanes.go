package dispatch

import (
	"context"
	"sync"
	"time"

	"platform/activities/delivery"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/workflows/contract"
)

// job is one delivery: an event to a webhook.
type job struct {
	ev   *eventJob
	hook store.Doc
}

func (j job) hookID() string { id, _ := j.hook["_id"].(string); return id }

// lanes hold a queue per webhook. A lane runs up to PerWebhook attempts at
// once; each attempt also takes one of its customer's PerCustomer slots and
// one of the process's Total slots. A slow or dead receiver thus holds at
// most its own lane's slots, and a customer at most its share: the others
// keep theirs.
type lanes struct {
	d       *Dispatcher
	mu      sync.Mutex
	byHook  map[string]*lane
	perCust map[string]chan struct{}
	total   chan struct{}
	busy    sync.WaitGroup // goroutines that must end before Run returns
}

func (ls *lanes) init(d *Dispatcher) {
	ls.d, ls.byHook, ls.perCust = d, map[string]*lane{}, map[string]chan struct{}{}
	ls.total = make(chan struct{}, d.Limits.Total)
}

func (ls *lanes) track()   { ls.busy.Add(1) }
func (ls *lanes) untrack() { ls.busy.Done() }
func (ls *lanes) wait()    { ls.busy.Wait() }

// lane is one webhook's queue and circuit.
type lane struct {
	customer  string
	mu        sync.Mutex
	queue     []job
	running   int
	fails     int       // failed attempts in a row
	openUntil time.Time // while the circuit is open, deliveries skip the first attempt
	used      time.Time
}

func (ls *lanes) lane(customer, hookID string) (*lane, chan struct{}) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l, ok := ls.byHook[hookID]
	if !ok {
		l = &lane{customer: customer}
		ls.byHook[hookID] = l
	}
	slots, ok := ls.perCust[customer]
	if !ok {
		slots = make(chan struct{}, ls.d.Limits.PerCustomer)
		ls.perCust[customer] = slots
	}
	return l, slots
}

// submit queues a delivery in its webhook's lane, or hands it to the
// webhook's retrier at once when the lane's circuit is open or its queue
// is full.
func (ls *lanes) submit(ctx context.Context, j job) {
	l, slots := ls.lane(j.ev.customer, j.hookID())
	l.mu.Lock()
	now := time.Now()
	l.used = now
	if now.Before(l.openUntil) || len(l.queue) >= ls.d.Limits.LaneQueue {
		open := l.openUntil
		l.mu.Unlock()
		ls.d.metrics.spilled.Inc()
		ls.d.out.spill(j, open)
		return
	}
	l.queue = append(l.queue, j)
	start := l.running < ls.d.Limits.PerWebhook
	if start {
		l.running++
	}
	l.mu.Unlock()
	if start {
		ls.track()
		go func() {
			defer ls.untrack()
			ls.work(ctx, l, slots)
		}()
	}
}

// work makes the lane's attempts until its queue is empty.
func (ls *lanes) work(ctx context.Context, l *lane, slots chan struct{}) {
	for {
		j, ok := l.next()
		if !ok {
			return
		}
		if !acquire(ctx, slots, ls.total) {
			continue // stopping: the event stays unfinished, its claim is released
		}
		out, err := ls.attempt(ctx, j)
		<-ls.total
		<-slots
		ls.settle(l, j, out, err)
	}
}

func (l *lane) next() (job, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) == 0 {
		l.running--
		return job{}, false
	}
	j := l.queue[0]
	l.queue[0] = job{}
	l.queue = l.queue[1:]
	return j, true
}

func acquire(ctx context.Context, a, b chan struct{}) bool {
	select {
	case a <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	select {
	case b <- struct{}{}:
		return true
	case <-ctx.Done():
		<-a
		return false
	}
}

// attempt makes the delivery's first attempt. It runs to its end even
// while the process stops (bounded by the webhook time-out), so a
// receiver's answer is not lost to a cancellation.
func (ls *lanes) attempt(ctx context.Context, j job) (delivery.Outcome, error) {
	actx := tenant.WithCustomer(context.WithoutCancel(ctx), j.ev.customer)
	start := time.Now()
	out, err := ls.d.Deliveries.Try(actx, delivery.Attempt{EventID: j.ev.id, Event: j.ev.event, Hook: j.hook, N: 1, Retake: j.ev.retake})
	ls.d.metrics.attempt(out.Status, time.Since(start))
	return out, err
}

// settle finishes a delivery after its first attempt: delivered and 410
// (the webhook is deactivated) end it; a failure goes to the retrier and
// counts towards opening the lane's circuit.
func (ls *lanes) settle(l *lane, j job, out delivery.Outcome, err error) {
	if err != nil {
		ls.d.Log.Warn("webhook first attempt: platform fault", "event", j.ev.id, "webhook", j.hookID(), "error", err)
	}
	switch {
	case err == nil && out.Status == webhook.StatusDelivered:
		l.succeeded()
		j.ev.finish()
	case err == nil && out.Status == contract.StatusDeactivated:
		ls.dropQueue(l) // the webhook is off: what waits is skipped
		j.ev.finish()
	default:
		if spill, until := l.failed(ls.d.Limits.FailStreak, ls.d.Limits.Cooldown); spill != nil {
			for _, s := range spill {
				ls.d.out.spill(s, until)
			}
		}
		ls.d.out.retry(j, &out)
	}
}

func (l *lane) succeeded() {
	l.mu.Lock()
	l.fails, l.openUntil = 0, time.Time{}
	l.mu.Unlock()
}

// failed counts a failure; the one that opens the circuit takes the
// lane's queue with it, for the retrier, not to be tried before the
// circuit half-opens.
func (l *lane) failed(streak int, cooldown time.Duration) ([]job, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fails++
	if l.fails < streak || time.Now().Before(l.openUntil) {
		return nil, time.Time{}
	}
	l.openUntil = time.Now().Add(cooldown)
	q := l.queue
	l.queue = nil
	return q, l.openUntil
}

// dropQueue finishes the lane's waiting deliveries without an attempt.
func (ls *lanes) dropQueue(l *lane) {
	l.mu.Lock()
	q := l.queue
	l.queue = nil
	l.mu.Unlock()
	for _, j := range q {
		j.ev.finish()
	}
}

// prune forgets lanes idle for a while (their circuit state with them).
func (ls *lanes) prune(idle time.Duration) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	cut := time.Now().Add(-idle)
	for id, l := range ls.byHook {
		l.mu.Lock()
		gone := l.running == 0 && len(l.queue) == 0 && l.used.Before(cut)
		l.mu.Unlock()
		if gone {
			delete(ls.byHook, id)
		}
	}
}
