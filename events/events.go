// Package events records platform events durably (DESIGN §4): an event is
// written to the customer's events collection before the write that caused
// it is acknowledged, so a crash after the answer cannot lose it. Delivery to
// webhooks and triggers reads from there.
package events

import (
	"context"
	"sync"
	"time"

	"platform/api"
	"platform/store"
	"platform/tenant"
)

var _ api.EventRecorder = (*Recorder)(nil)

// Collection holds the recorded events.
const Collection = "events"

// Event is one recorded event.
type Event struct {
	ID        string
	Name      string
	Customer  string
	Timestamp time.Time
	Data      store.Doc
}

// Notifier is told about each recorded event after it is stored (the
// dispatcher starts delivery from here; a sweeper catches what it misses).
type Notifier interface {
	Notify(ctx context.Context, e Event)
}

// Indexes are the events collection's indexes.
var Indexes = []store.Index{
	{Name: "by_name", Keys: []store.SortField{{Field: "name"}}},
	{Name: "by_dispatched", Keys: []store.SortField{{Field: "dispatched"}}},
}

// Recorder stores events. Concurrent events of one customer are written
// together (group commit): the first caller writes the batch, callers that
// arrive meanwhile join the next one. Nobody returns before their event is
// stored, and an idle recorder adds no delay.
type Recorder struct {
	Store    store.Store
	Notifier Notifier

	mu    sync.Mutex
	lanes map[string]*lane
}

type lane struct {
	mu    sync.Mutex // guards next
	next  *batch
	flush sync.Mutex // one write at a time per customer
}

type batch struct {
	docs   []store.Doc
	events []Event
	done   chan struct{}
	err    error
}

// Record implements api.EventRecorder.
func (r *Recorder) Record(ctx context.Context, name string, data store.Doc) error {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	e := Event{ID: store.NewID(), Name: name, Customer: cust, Timestamp: time.Now().UTC().Truncate(time.Millisecond), Data: data}
	doc := store.Doc{"_id": e.ID, "name": name, "timestamp": e.Timestamp, "data": data, "dispatched": false}
	l := r.laneOf(cust)
	l.mu.Lock()
	if l.next == nil {
		l.next = &batch{done: make(chan struct{})}
	}
	b := l.next
	b.docs, b.events = append(b.docs, doc), append(b.events, e)
	leader := len(b.docs) == 1
	l.mu.Unlock()
	if leader {
		r.write(ctx, l, b)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if b.err == nil && r.Notifier != nil {
		r.Notifier.Notify(ctx, e)
	}
	return b.err
}

// write stores a batch once the previous write of the lane has finished.
func (r *Recorder) write(ctx context.Context, l *lane, b *batch) {
	l.flush.Lock()
	defer l.flush.Unlock()
	l.mu.Lock()
	l.next = nil // later arrivals start the next batch
	l.mu.Unlock()
	// The batch holds other callers' events: do not let this request's
	// cancellation fail them.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	b.err = r.Store.Collection(Collection).InsertMany(wctx, b.docs)
	close(b.done)
}

func (r *Recorder) laneOf(cust string) *lane {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lanes == nil {
		r.lanes = map[string]*lane{}
	}
	l := r.lanes[cust]
	if l == nil {
		l = &lane{}
		r.lanes[cust] = l
	}
	return l
}
