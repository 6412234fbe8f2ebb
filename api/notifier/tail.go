package notifier

import (
	"context"
	"sync"
	"time"

	"platform/kernel/tenant"
)

// maxPagesPerPoll bounds one poll's reads; a busy customer's tail goes on
// at once with the next poll.
const maxPagesPerPoll = 4

// tail follows one customer's events collection for this process's
// clients of that customer. Ids are not strictly ordered across processes
// (their second comes first, then a per-process part) and an event can
// become visible after a later one (group commit), so besides reading
// above its cursor every poll, the tail re-reads the last Lookback every
// Sweep and skips the ids it has already fanned out.
type tail struct {
	hub      *Hub
	customer string
	wake     chan struct{}
	ctx      context.Context // the customer's tenant scope
	cancel   context.CancelFunc
	// started is when the first client joined: what was recorded before
	// is no client's news (a client that wants it resumes from an id).
	started time.Time

	mu      sync.Mutex
	clients map[*client]struct{}

	// Owned by the run goroutine.
	cursor    string
	seen      map[string]time.Time // ids fanned out within the lookback, by their second
	lastSweep time.Time
	// sweepAt is where an unfinished sweep goes on ("" when none is):
	// a busy lookback window takes more than one poll to re-read.
	sweepAt string
	failing bool
}

func newTail(h *Hub, customer string) *tail {
	ctx, cancel := context.WithCancel(tenant.WithCustomer(h.ctx, customer))
	return &tail{hub: h, customer: customer, wake: make(chan struct{}, 1), ctx: ctx, cancel: cancel, started: time.Now().Truncate(time.Millisecond),
		clients: map[*client]struct{}{}, seen: map[string]time.Time{}}
}

func (t *tail) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *tail) stop() { t.cancel() }

func (t *tail) add(c *client) {
	t.mu.Lock()
	t.clients[c] = struct{}{}
	t.mu.Unlock()
}

// remove drops c and answers how many clients are left.
func (t *tail) remove(c *client) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.clients, c)
	return len(t.clients)
}

// run polls until the last client leaves. It starts a lookback before the
// present; what a client missed before it connected comes from its own
// replay.
func (t *tail) run() {
	t.cursor = before(idFloor(t.started), t.hub.opt.Lookback)
	t.poll()
	t.lastSweep = time.Now()
	tick := time.NewTicker(t.hub.opt.Poll)
	defer tick.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-t.wake:
		case <-tick.C:
		}
		if t.poll() {
			t.poke()
		}
	}
}

// poll reads what is new (and, every Sweep, the lookback window again),
// fans it out, and answers whether more is waiting.
func (t *tail) poll() (more bool) {
	from := t.cursor
	switch {
	case t.sweepAt != "":
		from = t.sweepAt
	case time.Since(t.lastSweep) >= t.hub.opt.Sweep:
		from, t.lastSweep = before(t.cursor, t.hub.opt.Lookback), time.Now()
	}
	sweeping := from < t.cursor
	for page := 0; page < maxPagesPerPoll; page++ {
		items, err := readAfter(t.ctx, t.hub.deps.Store, t.customer, from, t.hub.opt.PageSize)
		if t.report(err) {
			return false
		}
		t.take(items)
		if len(items) < t.hub.opt.PageSize {
			t.sweepAt = ""
			t.forget()
			return false
		}
		from = items[len(items)-1].id
	}
	if sweeping {
		t.sweepAt = from // go on from here, up to the end, next poll
	}
	return true
}

// take fans out the items not seen yet, recorded since the tail started,
// and advances the cursor.
func (t *tail) take(items []item) {
	for i := range items {
		it := &items[i]
		if _, dup := t.seen[it.id]; dup {
			continue
		}
		sec, _ := idTime(it.id)
		t.seen[it.id] = sec
		if it.id > t.cursor {
			t.cursor = it.id
		}
		if !it.ts.Before(t.started) {
			t.fanout(it)
		}
	}
}

// fanout offers the item to every client; a full queue drops that client
// and never waits.
func (t *tail) fanout(it *item) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.clients {
		if c.wants(it) {
			c.enqueue(outgoing{id: it.id, b: it.msg})
		}
	}
}

// forget drops seen ids older than any sweep re-reads.
func (t *tail) forget() {
	cursorTime, _ := idTime(t.cursor)
	limit := cursorTime.Add(-t.hub.opt.Lookback - time.Second)
	for id, sec := range t.seen {
		if sec.Before(limit) {
			delete(t.seen, id)
		}
	}
}

// report logs a failing store once per outage; true when err is set.
func (t *tail) report(err error) bool {
	switch {
	case err == nil && t.failing:
		t.failing = false
		t.hub.deps.Log.Info("notifier: reading events works again", "customer", t.customer)
	case err != nil && !t.failing && t.ctx.Err() == nil:
		t.failing = true
		t.hub.deps.Log.Warn("notifier: reading events failed; retrying each poll", "customer", t.customer, "error", err.Error())
	}
	return err != nil
}
