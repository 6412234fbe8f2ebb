// Package events records platform events durably (DESIGN §4): an event is
// written to the customer's events collection before the write that caused
// it is acknowledged, so a crash after the answer cannot lose it. Delivery to
// webhooks and triggers reads from there.
package events

import (
	"context"
	"sync"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"

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
	{Name: "by_timestamp", Keys: []store.SortField{{Field: "timestamp"}}}, // retention (PruneDispatched)
}

// Link is one pipeline run in an event's causation chain.
type Link struct{ Run, Pipeline string }

type causeKey struct{}

// WithCause marks the writes made with ctx as caused by the chain of
// pipeline runs (oldest first): their events carry it in the envelope's
// cause, outside the record's data.
func WithCause(ctx context.Context, chain []Link) context.Context {
	return context.WithValue(ctx, causeKey{}, chain)
}

// causeDoc is the stored form of the chain in ctx, nil when none.
func causeDoc(ctx context.Context) []any {
	chain, _ := ctx.Value(causeKey{}).([]Link)
	if len(chain) == 0 {
		return nil
	}
	out := make([]any, len(chain))
	for i, l := range chain {
		out[i] = store.Doc{"run": l.Run, "pipeline": l.Pipeline}
	}
	return out
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
	if cause := causeDoc(ctx); cause != nil {
		doc["cause"] = cause
	}
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

// Pending is an event stored but not dispatched yet.
type Pending struct {
	ID, Name  string
	Timestamp time.Time
}

// Undispatched lists up to limit events of customer not dispatched yet
// (unsorted: the cheap query, served by the index on dispatched).
func Undispatched(ctx context.Context, st store.Store, customer string, limit int) ([]Pending, error) {
	docs, err := st.Collection(Collection).Find(tenant.WithCustomer(ctx, customer), store.FindOptions{
		Filter: query.Eq("dispatched", false), Limit: int64(limit), Fields: []string{"name", "timestamp"},
	})
	if err != nil {
		return nil, err
	}
	out := make([]Pending, len(docs))
	for i, d := range docs {
		out[i].ID, _ = d["_id"].(string)
		out[i].Name, _ = d["name"].(string)
		out[i].Timestamp, _ = d["timestamp"].(time.Time)
	}
	return out, nil
}
