package sandbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"platform/kernel/tenant"
)

// ErrBusy is what a call gets when no child became free for it within
// PoolOptions.QueueTimeout (as a *BusyError): the pool is saturated, the
// call did not run, and it may be retried later.
var ErrBusy = errors.New("sandbox: busy")

// BusyError is ErrBusy with how long the call waited.
type BusyError struct{ Waited time.Duration }

func (e *BusyError) Error() string {
	return fmt.Sprintf("sandbox: busy: no child became free within %v", e.Waited)
}

// Is makes errors.Is(err, ErrBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// laneOf is the queue a call waits in: its customer's, or one shared lane
// for calls made without one (admin tools, tests).
func laneOf(ctx context.Context) string {
	c, _ := tenant.Customer(ctx)
	return c
}

// lanes shares the pool's slots between tenants. A lane (one tenant) holds
// at most perLane slots, so one tenant's endless loops always leave a child
// to the others. A freed slot goes to the waiting lane served least
// recently (a lane new to the queue first), and within a lane to its
// oldest call: a tenant with many queued calls cannot push another
// tenant's call behind all of them, only behind the calls running now.
type lanes struct {
	mu      sync.Mutex
	free    int // slots no call holds
	perLane int
	held    map[string]int       // slots held per lane
	queue   map[string][]*waiter // waiting calls per lane, oldest first
	served  map[string]uint64    // tick of each busy lane's latest slot
	tick    uint64               // counts joins and grants, to order them
}

type waiter struct {
	ready   chan struct{} // closed when the slot is granted
	since   uint64        // tick at which it joined
	granted bool
}

func newLanes(slots, perLane int) *lanes {
	return &lanes{free: slots, perLane: perLane,
		held: map[string]int{}, queue: map[string][]*waiter{}, served: map[string]uint64{}}
}

// enter takes a slot for lane, waiting at most bound (then a *BusyError)
// and no longer than ctx or done allow.
func (l *lanes) enter(ctx context.Context, lane string, bound time.Duration, done <-chan struct{}) error {
	w := l.join(lane)
	if w == nil {
		return nil
	}
	timer := time.NewTimer(bound)
	defer timer.Stop()
	var err error
	select {
	case <-w.ready:
		return nil
	case <-timer.C:
		err = &BusyError{Waited: bound}
	case <-ctx.Done():
		err = ctx.Err()
	case <-done:
		err = ErrClosed
	}
	if !l.abandon(lane, w) {
		l.leave(lane) // granted while giving up: pass it on
	}
	return err
}

// join takes a free slot at once when the lane may hold another and none
// of its calls waits (lanes that wait while a slot is free are at their
// cap); otherwise it queues a waiter and returns it.
func (l *lanes) join(lane string) *waiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tick++
	if l.free > 0 && l.held[lane] < l.perLane && len(l.queue[lane]) == 0 {
		l.take(lane)
		return nil
	}
	w := &waiter{ready: make(chan struct{}), since: l.tick}
	l.queue[lane] = append(l.queue[lane], w)
	return w
}

// leave gives a slot of lane back and hands free slots on.
func (l *lanes) leave(lane string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.free++
	if l.held[lane]--; l.held[lane] == 0 {
		delete(l.held, lane)
	}
	l.forgetIfIdle(lane)
	for l.free > 0 {
		lane, ok := l.next()
		if !ok {
			return
		}
		w := l.queue[lane][0]
		if l.queue[lane] = l.queue[lane][1:]; len(l.queue[lane]) == 0 {
			delete(l.queue, lane)
		}
		l.take(lane)
		w.granted = true
		close(w.ready)
	}
}

// next is the waiting lane below its cap that was served least recently;
// between equals, the one whose oldest call waits longest.
func (l *lanes) next() (string, bool) {
	best, found := "", false
	for lane, q := range l.queue {
		if l.held[lane] >= l.perLane {
			continue
		}
		if !found || l.served[lane] < l.served[best] ||
			l.served[lane] == l.served[best] && q[0].since < l.queue[best][0].since {
			best, found = lane, true
		}
	}
	return best, found
}

func (l *lanes) take(lane string) {
	l.tick++
	l.free--
	l.held[lane]++
	l.served[lane] = l.tick
}

// abandon takes a waiter out of its queue; false if it was granted a slot
// meanwhile (the caller then holds it).
func (l *lanes) abandon(lane string, w *waiter) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.granted {
		return false
	}
	if q := slices.DeleteFunc(l.queue[lane], func(x *waiter) bool { return x == w }); len(q) > 0 {
		l.queue[lane] = q
	} else {
		delete(l.queue, lane)
		l.forgetIfIdle(lane)
	}
	return true
}

// forgetIfIdle drops what is known of a lane that holds and awaits
// nothing: when it comes back, it starts afresh.
func (l *lanes) forgetIfIdle(lane string) {
	if l.held[lane] == 0 && len(l.queue[lane]) == 0 {
		delete(l.served, lane)
	}
}
