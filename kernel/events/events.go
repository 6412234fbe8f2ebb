// Package events records platform events durably (DESIGN §4): an event is
// written to the customer's events collection before the write that caused
// it is acknowledged, so a crash after the answer cannot lose it. Delivery to
// webhooks and triggers reads from there.
package events

import (
	"context"
	"platform/kernel/resource"
	"sync"
	"time"

	"platform/kernel/groupcommit"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

var _ resource.EventRecorder = (*Recorder)(nil)

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
// together (group commit, one lane per customer): nobody returns before
// their event is stored, and an idle recorder adds no delay.
type Recorder struct {
	Store    store.Store
	Notifier Notifier

	once    sync.Once
	batches *groupcommit.Inserter
}

// Record implements resource.EventRecorder.
func (r *Recorder) Record(ctx context.Context, name string, data store.Doc) error {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	e := Event{ID: store.NewID(), Name: name, Customer: cust, Timestamp: time.Now().UTC().Truncate(time.Millisecond), Data: data}
	doc := store.Doc{"_id": e.ID, "name": name, "timestamp": e.Timestamp, "data": data, "dispatched": false}
	if err := r.inserter().Insert(ctx, cust, doc); err != nil {
		return err
	}
	if r.Notifier != nil {
		r.Notifier.Notify(ctx, e)
	}
	return nil
}

func (r *Recorder) inserter() *groupcommit.Inserter {
	r.once.Do(func() {
		r.batches = &groupcommit.Inserter{InsertMany: func(ctx context.Context, customer string, docs []store.Doc) error {
			return r.Store.Collection(Collection).InsertMany(tenant.WithCustomer(ctx, customer), docs)
		}}
	})
	return r.batches
}
