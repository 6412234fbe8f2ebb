package dispatch

import (
	"sync"

	"platform/kernel/events"
)

// hotEvents are events this process stored, per customer, waiting to be
// claimed. Customers take turns, and a customer whose batch is under
// way waits for it, so one customer's burst cannot hold up another's
// events.
type hotEvents struct {
	mu    sync.Mutex
	ids   map[string][]events.Event
	busy  map[string]bool
	order []string // customers with ids, in turn order
}

// add queues an event unless its customer has max waiting.
func (h *hotEvents) add(e events.Event, max int) bool {
	customer := e.Customer
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ids == nil {
		h.ids, h.busy = map[string][]events.Event{}, map[string]bool{}
	}
	q := h.ids[customer]
	if len(q) >= max {
		return false
	}
	if len(q) == 0 {
		h.order = append(h.order, customer)
	}
	h.ids[customer] = append(q, e)
	return true
}

// take gives the next idle customer's events (at most max) and marks the
// customer busy until done is called.
func (h *hotEvents) take(max int) (customer string, evs []events.Event, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, c := range h.order {
		if h.busy[c] {
			continue
		}
		q := h.ids[c]
		n := min(max, len(q))
		evs = append([]events.Event(nil), q[:n]...)
		if n == len(q) {
			delete(h.ids, c)
			h.order = append(h.order[:i:i], h.order[i+1:]...)
		} else {
			h.ids[c] = q[n:]
			h.order = append(append(h.order[:i:i], h.order[i+1:]...), c) // to the back of the turn
		}
		h.busy[c] = true
		return c, evs, true
	}
	return "", nil, false
}

// done ends the customer's batch.
func (h *hotEvents) done(customer string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.busy, customer)
}

// drains marks the customers whose swept events are being drained.
type drains struct {
	mu  sync.Mutex
	set map[string]bool
}

// start marks the customer; false when a drain of it is under way.
func (d *drains) start(customer string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.set == nil {
		d.set = map[string]bool{}
	}
	if d.set[customer] {
		return false
	}
	d.set[customer] = true
	return true
}

func (d *drains) stop(customer string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.set, customer)
}
