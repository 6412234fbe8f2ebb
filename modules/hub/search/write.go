package search

import (
	"context"
	"errors"
	"fmt"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// Put indexes d for the customer of ctx, replacing what was indexed under
// its type and id.
func (x *Index) Put(ctx context.Context, d Doc) error {
	if _, ok := typeCode(d.Type); !ok || d.ID == "" {
		return fmt.Errorf("%w: type %q, id %q", ErrInvalidDoc, d.Type, d.ID)
	}
	return x.write(ctx, d.Type, d.ID, encode(bounded(d), x.opts.Now().UTC()), nil)
}

// Remove drops a record from the index. It leaves a tombstone with its
// sequence number, so caches learn of it as of any other write, and a
// slower writer of an older version cannot bring the record back.
func (x *Index) Remove(ctx context.Context, typ, id string) error {
	if _, ok := typeCode(typ); !ok || id == "" {
		return fmt.Errorf("%w: type %q, id %q", ErrInvalidDoc, typ, id)
	}
	set := store.Doc{fType: typ, fRef: id, fDeleted: true, fAt: x.opts.Now().UTC()}
	return x.write(ctx, typ, id, set, contentFields)
}

func (x *Index) write(ctx context.Context, typ, id string, set store.Doc, unset []string) error {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	seq, err := x.nextSeq(ctx)
	if err != nil {
		return err
	}
	set[fSeq] = seq
	return x.commit(ctx, docKey(customer, typ, id), seq, set, unset)
}

// nextSeq takes the customer's next sequence number.
func (x *Index) nextSeq(ctx context.Context) (int64, error) { return x.takeSeqs(ctx, 1) }

// readSeq is the customer's last sequence number taken (0: none yet).
func (x *Index) readSeq(ctx context.Context) (int64, error) {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return 0, err
	}
	d, err := x.st.Collection(seqCollection).Get(ctx, customer)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("search: read the sequence: %w", err)
	}
	return store.Int(d["n"]), nil
}

// commit stores the write unless a later one (a higher seq) is already
// stored: then this one is superseded and dropping it is right.
func (x *Index) commit(ctx context.Context, key string, seq int64, set store.Doc, unset []string) error {
	for attempt := 0; attempt < 2; attempt++ {
		ok, err := x.updateIfOlder(ctx, key, seq, set, unset)
		if ok || err != nil {
			return err
		}
		err = x.docs().Insert(ctx, withID(set, key))
		if !store.IsDuplicate(err) {
			return err
		}
		// It exists: newer (done) or a racing insert of an older one (retry).
	}
	return nil
}

func (x *Index) updateIfOlder(ctx context.Context, key string, seq int64, set store.Doc, unset []string) (bool, error) {
	older := query.Field{Path: fSeq, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: seq}}}
	_, err := x.docs().Update(ctx, query.AllOf(query.ID(key), older), store.Update{Set: set, Unset: unset})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("search: store %s: %w", key, err)
	}
	return true, nil
}

func withID(d store.Doc, id string) store.Doc {
	out := make(store.Doc, len(d)+1)
	for k, v := range d {
		out[k] = v
	}
	out["_id"] = id
	return out
}

// batchSize bounds the documents one PutMany write carries.
const batchSize = 500

// PutMany indexes docs for the customer of ctx in batches, a backfill: one
// sequence range and one insert per batch. A document already indexed is
// replaced as Put would, one by one.
func (x *Index) PutMany(ctx context.Context, docs []Doc) error {
	for start := 0; start < len(docs); start += batchSize {
		if err := x.putBatch(ctx, docs[start:min(start+batchSize, len(docs))]); err != nil {
			return err
		}
	}
	return nil
}

func (x *Index) putBatch(ctx context.Context, docs []Doc) error {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	last, err := x.takeSeqs(ctx, len(docs))
	if err != nil {
		return err
	}
	now, stored := x.opts.Now().UTC(), make([]store.Doc, len(docs))
	for i, d := range docs {
		if _, ok := typeCode(d.Type); !ok || d.ID == "" {
			return fmt.Errorf("%w: type %q, id %q", ErrInvalidDoc, d.Type, d.ID)
		}
		stored[i] = encode(bounded(d), now)
		stored[i][fSeq] = last - int64(len(docs)-1-i)
	}
	return x.insertAll(ctx, customer, stored)
}

// insertAll inserts the batch; when some are indexed already, each is
// committed on its own (those the insert stored are then left as they are).
func (x *Index) insertAll(ctx context.Context, customer string, stored []store.Doc) error {
	keyed := make([]store.Doc, len(stored))
	for i, set := range stored {
		keyed[i] = withID(set, docKey(customer, str(set[fType]), str(set[fRef])))
	}
	err := x.docs().InsertMany(ctx, keyed)
	if !store.IsDuplicate(err) {
		return err
	}
	for i, set := range stored {
		if err := x.commit(ctx, str(keyed[i]["_id"]), store.Int(set[fSeq]), set, nil); err != nil {
			return err
		}
	}
	return nil
}

// takeSeqs takes n sequence numbers of the customer and answers the last.
func (x *Index) takeSeqs(ctx context.Context, n int) (int64, error) {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return 0, err
	}
	d, err := x.st.Collection(seqCollection).Upsert(ctx, customer, store.Update{Inc: map[string]any{"n": int64(n)}})
	if err != nil {
		return 0, fmt.Errorf("search: take sequence numbers: %w", err)
	}
	return store.Int(d["n"]), nil
}
