package notifier

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
)

// item is one record of the events collection, encoded once for every
// client that gets it.
type item struct {
	id, name string
	user     string    // the addressee of an in-app notification
	ts       time.Time // when it was recorded
	msg      []byte
}

// readAfter reads up to limit records of the customer in ctx whose ids
// sort above after, in id order. Ids begin with their second (store.NewID),
// so this is a range on the _id index on MongoDB and the embedded store;
// FerretDB scans the (retention-bounded) collection, as it does for every
// filter but _id equality.
func readAfter(ctx context.Context, st store.Store, customer, after string, limit int) ([]item, error) {
	docs, err := st.Collection(events.Collection).Find(ctx, store.FindOptions{
		Filter: query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: after}}},
		Sort:   []store.SortField{{Field: "_id"}}, Limit: int64(limit), Fields: []string{"name", "timestamp", "data"},
	})
	if err != nil {
		return nil, err
	}
	out := make([]item, 0, len(docs))
	for _, d := range docs {
		out = append(out, toItem(d, customer))
	}
	return out, nil
}

// toItem encodes a stored record as its message.
func toItem(d store.Doc, customer string) item {
	it := item{}
	it.id, _ = d["_id"].(string)
	it.name, _ = d["name"].(string)
	ts, _ := d["timestamp"].(time.Time)
	it.ts = ts
	data, _ := d["data"].(map[string]any)
	if it.name == events.InAppName {
		it.user, _ = data["user"].(string)
		it.msg = encode(notificationMessage{Type: TypeNotification, ID: it.id, Timestamp: ts, Notification: data})
		return it
	}
	it.msg = encode(eventMessage{Type: TypeEvent, ID: it.id, Event: it.name, Timestamp: ts, Customer: customer, Data: data})
	return it
}

// idFloor is the lowest id of the second of t: every id minted at t or
// later sorts above it.
func idFloor(t time.Time) string {
	return fmt.Sprintf("%08x", uint32(t.Unix())) + "0000000000000000"
}

// idTime is the second an id was minted in.
func idTime(id string) (time.Time, bool) {
	if !store.ValidID(id) {
		return time.Time{}, false
	}
	b, err := hex.DecodeString(id[:8])
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(int64(b[0])<<24|int64(b[1])<<16|int64(b[2])<<8|int64(b[3]), 0), true
}

// before is the floor lookback earlier than id's second.
func before(id string, lookback time.Duration) string {
	t, ok := idTime(id)
	if !ok {
		return id
	}
	return idFloor(t.Add(-lookback))
}
