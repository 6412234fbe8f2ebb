package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// Document counters (docs/counts.md). CountsCollection holds one document
// per collection and customer ("" for a global collection) with the number
// of its documents in n. Without multi-document transactions (FerretDB has
// none; NOTES.md) a write changes its counter with $inc right after its
// own operation, inside the same write (so a cancelled caller cannot stop
// between the two), and only a counter that exists: counters are made by a
// recount, the first time CountAll finds none. What can make a counter
// drift, and how it is repaired:
//   - the process dies between a write and its $inc (the counter misses
//     that write): Recount, run by `platform counts-repair`, rewrites it;
//   - on MongoDB, writes racing with the recount that creates a counter
//     may be counted twice or not at all (on FerretDB, the single-process
//     embedded store, writes and recounts of one counter take turns, so
//     they are exact);
//   - a write whose outcome is unknown (no answer from the server), or an
//     $inc that fails, deletes the counter instead: the next CountAll
//     recounts.
const CountsCollection = "platform_counts"

// countID names the counter of a collection and customer unambiguously
// (the length prefix ends the collection's name).
func countID(coll, customer string) string {
	return fmt.Sprintf("%d:%s:%s", len(coll), coll, customer)
}

func (s *Store) counts() *mongo.Collection { return s.db.Collection(CountsCollection) }

// counter names the counter of the caller's documents.
func (c *collection) counter(ctx context.Context) (string, error) {
	cust, err := c.customer(ctx)
	return countID(c.name, cust), err
}

// lockCounter makes the writes and recounts of one counter take turns on
// FerretDB, whose $inc is not atomic (see Store.ferret); on MongoDB it does
// nothing. Taken after any collection lock (lockWrites), never before.
func (s *Store) lockCounter(ctx context.Context, id string) (unlock func(), err error) {
	return s.lockWrites(ctx, "\x00count\x00"+id)
}

// counted runs a write op that changes the caller's number of documents
// by what it returns, with the counter's turn on FerretDB; the $inc runs
// inside the write, with its context.
func (c *collection) counted(ctx context.Context, op func(ctx context.Context) (delta int64, known bool, err error)) error {
	id, err := c.counter(ctx)
	if err != nil {
		return err
	}
	unlock, err := c.s.lockCounter(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	return c.s.write(ctx, func(ctx context.Context) error {
		delta, known, err := op(ctx)
		c.s.bump(ctx, id, delta, known)
		return err
	})
}

// bump adds delta to an existing counter; when the write's effect is not
// known, or the $inc fails, it deletes the counter so that the next
// CountAll recounts rather than answering a wrong number.
func (s *Store) bump(ctx context.Context, id string, delta int64, known bool) {
	if known && delta == 0 {
		return
	}
	if known {
		_, err := s.counts().UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: delta}}}})
		if err == nil {
			return
		}
	}
	_, _ = s.counts().DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
}

// refused reports whether the server answered err, so the operation did
// not apply (a duplicate key, a validation error); a network error or a
// time-out leaves it unknown, and so does a write concern error, which
// the server reports for a write it applied but could not replicate as
// asked.
func refused(err error) bool {
	var se mongo.ServerError
	var we mongo.WriteException
	if errors.As(err, &we) && we.WriteConcernError != nil {
		return false
	}
	return errors.As(err, &se) && !mongo.IsNetworkError(err) && !mongo.IsTimeout(err)
}

// insertedBefore is how many documents an ordered InsertMany wrote before
// err, and whether that is known.
func insertedBefore(err error, n int) (int64, bool) {
	if err == nil {
		return int64(n), true
	}
	var bw mongo.BulkWriteException
	if !errors.As(err, &bw) || bw.WriteConcernError != nil || len(bw.WriteErrors) == 0 || mongo.IsNetworkError(err) {
		return 0, false
	}
	first := bw.WriteErrors[0].Index
	for _, we := range bw.WriteErrors {
		first = min(first, we.Index)
	}
	return int64(first), true
}

// CountAll implements store.Collection: the counter, or a recount that
// creates it when there is none.
func (c *collection) CountAll(ctx context.Context) (int64, error) {
	id, err := c.counter(ctx)
	if err != nil {
		return 0, err
	}
	if n, found, err := c.s.readCounter(ctx, id); found || err != nil {
		return n, err
	}
	return c.createCounter(ctx, id)
}

// readCounter reads the counter id, if it exists.
func (s *Store) readCounter(ctx context.Context, id string) (int64, bool, error) {
	var m bson.M
	err := s.counts().FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&m)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, wrap(err)
	}
	// Never below zero: on MongoDB with several replicas a delete racing
	// with the recount that created the counter can take it there
	// (docs/counts.md), and a total is a number of records.
	return max(store.Int(fromBSONValue(m["n"])), 0), true, nil
}

// createCounter recounts a missing counter. Lists asked at once on a
// collection without a counter all miss it; on FerretDB they take turns
// here, and each one after the first finds the counter its predecessor
// wrote rather than counting the whole collection again.
func (c *collection) createCounter(ctx context.Context, id string) (int64, error) {
	unlock, err := c.s.lockCounter(ctx, id)
	if err != nil {
		return 0, err
	}
	defer unlock()
	if n, found, err := c.s.readCounter(ctx, id); found || err != nil {
		return n, err
	}
	return c.writeCount(ctx, id)
}

// recount counts the caller's documents and rewrites the counter.
func (c *collection) recount(ctx context.Context, id string) (int64, error) {
	unlock, err := c.s.lockCounter(ctx, id)
	if err != nil {
		return 0, err
	}
	defer unlock()
	return c.writeCount(ctx, id)
}

// writeCount counts the caller's documents and writes the counter; the
// caller holds the counter's turn.
func (c *collection) writeCount(ctx context.Context, id string) (int64, error) {
	f, err := c.scope(ctx, nil)
	if err != nil {
		return 0, err
	}
	n, err := c.c.CountDocuments(ctx, f)
	if err != nil {
		return 0, wrap(err)
	}
	cust, _ := c.customer(ctx)
	doc := bson.D{{Key: "_id", Value: id}, {Key: "collection", Value: c.name}, {Key: "customer", Value: cust},
		{Key: "scoped", Value: c.scoped}, {Key: "n", Value: n}, {Key: "countedAt", Value: time.Now().UTC()}}
	_, err = c.s.counts().ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, doc, options.Replace().SetUpsert(true))
	return n, wrap(err)
}

// CountUpTo implements store.Collection: the server stops counting at
// limit (FerretDB, and filters it cannot evaluate, are matched in Go,
// stopping at limit too).
func (c *collection) CountUpTo(ctx context.Context, e query.Expr, limit int64) (int64, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("mongostore: count limit %d must be positive", limit)
	}
	if c.s.needsLocalMatch(e) {
		ids, err := c.idsMatching(ctx, e, limit)
		return int64(len(ids)), err
	}
	f, err := c.scope(ctx, e)
	if err != nil {
		return 0, err
	}
	n, err := c.c.CountDocuments(ctx, f, options.Count().SetLimit(limit))
	return n, wrap(err)
}

// Recount counts again the documents of every counter and rewrites those
// that drifted (platform counts-repair); it answers how many it changed.
// Counters that do not exist yet are left to CountAll.
func (s *Store) Recount(ctx context.Context) (int64, error) {
	cur, err := s.counts().Find(ctx, bson.D{})
	if err != nil {
		return 0, wrap(err)
	}
	var counters []bson.M
	if err := cur.All(ctx, &counters); err != nil {
		return 0, wrap(err)
	}
	var changed int64
	for _, m := range counters {
		fixed, err := s.recountOne(ctx, m)
		if err != nil {
			return changed, err
		}
		if fixed {
			changed++
		}
	}
	return changed, nil
}

func (s *Store) recountOne(ctx context.Context, m bson.M) (bool, error) {
	name, _ := m["collection"].(string)
	cust, _ := m["customer"].(string)
	scoped, _ := m["scoped"].(bool)
	if name == "" {
		return false, nil
	}
	c := &collection{s: s, c: s.db.Collection(name), name: name, scoped: scoped}
	if scoped {
		ctx = tenant.WithCustomer(ctx, cust)
	}
	n, err := c.recount(ctx, countID(name, cust))
	return err == nil && n != store.Int(fromBSONValue(m["n"])), err
}
