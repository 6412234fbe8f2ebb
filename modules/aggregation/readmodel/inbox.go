package readmodel

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Waker makes sure the customer's Aggregator workflow runs and reads its
// inbox soon (a signal-with-start).
type Waker interface {
	Wake(ctx context.Context, customer string) error
}

// Feed puts the events the read models count into the customer's inbox
// and wakes its Aggregator. An event is in the inbox once: a repeated one
// (at-least-once delivery) finds its id there and is dropped.
type Feed struct {
	Store store.Store
	Waker Waker // nil: the Aggregator finds the events on its next poll
}

// Wants says whether any model counts events of that name.
func Wants(name string) bool {
	c, _ := entityOf(name)
	_, ok := sourceFields()[c]
	return ok
}

// sourceFields are the record fields kept per source collection.
func sourceFields() map[string][]string {
	out := map[string][]string{}
	for _, m := range Models() {
		for _, s := range m.Sources {
			out[s.Collection] = append(out[s.Collection], s.Fields...)
		}
	}
	for c := range out {
		out[c] = append(out[c], "updatedAt", "createdAt")
	}
	return out
}

// Events hands stored events of the customer in ctx (documents with _id,
// name, timestamp and data, as the events collection holds them).
func (f *Feed) Events(ctx context.Context, events []store.Doc) error {
	var docs []store.Doc
	fields := sourceFields()
	for _, ev := range events {
		name, _ := ev["name"].(string)
		coll, verb := entityOf(name)
		keep, ok := fields[coll]
		data, _ := ev["data"].(store.Doc)
		if !ok || data == nil {
			continue
		}
		at, _ := ev["timestamp"].(time.Time)
		id, _ := ev["_id"].(string)
		docs = append(docs, inboxDoc(id, coll, data, keep, verb == "deleted", at))
	}
	return f.add(ctx, docs)
}

// Record hands a record written without the record service (the
// pseudo-events EventRunEnded and EventAttemptRecorded) of the customer in
// ctx; its id in the inbox derives from the record and its version.
func (f *Feed) Record(ctx context.Context, name string, rec store.Doc) error {
	coll, _ := entityOf(name)
	keep := sourceFields()[coll]
	d := inboxDoc("", coll, rec, keep, false, time.Now().UTC())
	entity, _ := rec["_id"].(string)
	d["_id"] = contract.DerivedID(name, entity, d["version"].(time.Time).Format(time.RFC3339Nano))
	return f.add(ctx, []store.Doc{d})
}

func inboxDoc(id, coll string, data store.Doc, keep []string, gone bool, at time.Time) store.Doc {
	rec := store.Doc{}
	for _, k := range keep {
		if v, ok := data[k]; ok {
			rec[k] = v
		}
	}
	entity, _ := data["_id"].(string)
	return store.Doc{"_id": id, "pending": true, "collection": coll, "entity": entity,
		"version": versionOf(data, at), "gone": gone, "record": rec, "at": at}
}

// versionOf orders the snapshots of a record: its updatedAt (records
// written once have only createdAt), else the event's time.
func versionOf(data store.Doc, at time.Time) time.Time {
	for _, k := range []string{"updatedAt", "createdAt"} {
		if t, ok := data[k].(time.Time); ok {
			return t.UTC()
		}
	}
	return at.UTC()
}

func (f *Feed) add(ctx context.Context, docs []store.Doc) error {
	if len(docs) == 0 {
		return nil
	}
	if err := insertAll(ctx, f.Store.Collection(Inbox), docs); err != nil {
		return err
	}
	if f.Waker == nil {
		return nil
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	return f.Waker.Wake(ctx, cust)
}

// insertAll inserts docs; those already there (a repeated event) are
// skipped, one at a time when the batch hit one.
func insertAll(ctx context.Context, coll store.Collection, docs []store.Doc) error {
	err := coll.InsertMany(ctx, docs)
	if err == nil || !store.IsDuplicate(err) {
		return err
	}
	for _, d := range docs {
		if err := coll.Insert(ctx, d); err != nil && !store.IsDuplicate(err) {
			return err
		}
	}
	return nil
}

// Pending reads up to limit events waiting in the inbox (unsorted: the
// cheap query; the engine orders each entity's snapshots by version).
func (e *Engine) Pending(ctx context.Context, limit int) ([]Snapshot, []string, []time.Time, error) {
	docs, err := e.Store.Collection(Inbox).Find(ctx, store.FindOptions{Filter: query.Eq("pending", true), Limit: int64(limit)})
	if err != nil {
		return nil, nil, nil, err
	}
	snaps, ids, ats := make([]Snapshot, len(docs)), make([]string, len(docs)), make([]time.Time, len(docs))
	for i, d := range docs {
		ids[i], _ = d["_id"].(string)
		ats[i], _ = d["at"].(time.Time)
		snaps[i].Collection, _ = d["collection"].(string)
		snaps[i].Entity, _ = d["entity"].(string)
		snaps[i].Version, _ = d["version"].(time.Time)
		snaps[i].Gone, _ = d["gone"].(bool)
		snaps[i].Record, _ = d["record"].(store.Doc)
	}
	return snaps, ids, ats, nil
}

func (e *Engine) markApplied(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	vals := make([]any, len(ids))
	for i, id := range ids {
		vals[i] = id
	}
	_, err := e.Store.Collection(Inbox).UpdateMany(ctx, query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: vals}}},
		store.Update{Set: store.Doc{"pending": false, "appliedAt": e.now()}})
	return err
}

// PruneApplied removes up to limit inbox entries applied before before.
// An event repeated after its entry is gone is applied again, harmlessly:
// its snapshot is the contribution already applied (no difference) or
// older than it (refused); see docs/aggregation.md.
func (e *Engine) PruneApplied(ctx context.Context, before time.Time, limit int) (int64, error) {
	return store.DeleteBatch(ctx, e.Store.Collection(Inbox), query.AllOf(query.Eq("pending", false),
		query.Field{Path: "appliedAt", Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: before.UTC()}}}), limit)
}

// Indexes are the engine's indexes, per collection.
var Indexes = map[string][]store.Index{
	Inbox:    {{Name: "by_pending", Keys: []store.SortField{{Field: "pending"}}}},
	Contribs: {{Name: "by_model", Keys: []store.SortField{{Field: "model"}}}},
}
