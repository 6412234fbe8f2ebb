package states

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Result counts what a registration changed.
type Result struct {
	Inserted, Updated, Deleted, Unchanged int
}

// Changed reports whether the registration wrote anything.
func (r Result) Changed() bool { return r.Inserted+r.Updated+r.Deleted > 0 }

// attempts bounds the rounds of a registration racing another process's.
const attempts = 3

// Register upserts states, keyed by (module, app name, name, type): a
// state not stored yet is inserted, one whose content changed is
// replaced (keeping createdAt), an unchanged one is left alone, and a
// stored state of the app that is no longer derived is deleted. Two
// processes starting at once may both insert: the loser's duplicate
// makes it compare again.
func Register(ctx context.Context, st store.Store, app string, want []State) (Result, error) {
	docs := make([]store.Doc, len(want))
	for i, s := range want {
		docs[i] = s.Doc()
	}
	return upsertAll(ctx, st.Global(Collection), app, docs)
}

// upsertAll makes the app's documents of coll those of want (each with
// its _id and content hash), writing only what differs.
func upsertAll(ctx context.Context, coll store.Collection, app string, want []store.Doc) (Result, error) {
	var err error
	for range attempts {
		var res Result
		res, err = sync(ctx, coll, app, want)
		if !store.IsDuplicate(err) {
			return res, err
		}
	}
	return Result{}, fmt.Errorf("states: registration kept racing another process: %w", err)
}

func sync(ctx context.Context, coll store.Collection, app string, want []store.Doc) (Result, error) {
	stored, err := coll.Find(ctx, store.FindOptions{Filter: query.Eq(FieldAppName, app), Fields: []string{FieldHash, "createdAt"}})
	if err != nil {
		return Result{}, err
	}
	have := make(map[string]store.Doc, len(stored))
	for _, d := range stored {
		have[d["_id"].(string)] = d
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	var res Result
	var inserts []store.Doc
	for _, d := range want {
		id := d["_id"].(string)
		old, ok := have[id]
		delete(have, id)
		switch {
		case !ok:
			inserts = append(inserts, stamped(d, now, now))
			res.Inserted++
		case old[FieldHash] == d[FieldHash]:
			res.Unchanged++
		default:
			created, _ := old["createdAt"].(time.Time)
			if err := coll.Replace(ctx, id, stamped(d, created, now)); err != nil {
				return res, err
			}
			res.Updated++
		}
	}
	if len(inserts) > 0 {
		if err := coll.InsertMany(ctx, inserts); err != nil {
			return res, err
		}
	}
	return res, deleteStale(ctx, coll, have, &res)
}

// deleteStale removes the states no declaration derives any more.
func deleteStale(ctx context.Context, coll store.Collection, stale map[string]store.Doc, res *Result) error {
	if len(stale) == 0 {
		return nil
	}
	ids := make([]any, 0, len(stale))
	for id := range stale {
		ids = append(ids, id)
	}
	n, err := coll.Delete(ctx, query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids}}})
	res.Deleted = int(n)
	return err
}

func stamped(d store.Doc, created, updated time.Time) store.Doc {
	d["createdAt"], d["updatedAt"] = created, updated
	d["createdBy"], d["modifiedBy"] = resource.PlatformActor, resource.PlatformActor
	return d
}

// contentHash sums a document's content (encoding/json orders map keys).
func contentHash(d store.Doc) string {
	b, _ := json.Marshal(d)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
