package readmodel_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/aggregation/readmodel"
	"platform/test/testenv"
)

// crashingStore fails the n-th row or contribution update, as a worker
// killed half way through a batch would leave it.
type crashingStore struct {
	store.Store
	n, at *atomic.Int32
}

func (s crashingStore) Collection(name string) store.Collection {
	return crashingColl{Collection: s.Store.Collection(name), s: s}
}

type crashingColl struct {
	store.Collection
	s crashingStore
}

func (c crashingColl) crash() error {
	if c.s.n.Add(1) == c.s.at.Load() {
		return errors.New("killed")
	}
	return nil
}

func (c crashingColl) Update(ctx context.Context, f query.Expr, u store.Update) (store.Doc, error) {
	if err := c.crash(); err != nil {
		return nil, err
	}
	return c.Collection.Update(ctx, f, u)
}

func (c crashingColl) InsertMany(ctx context.Context, docs []store.Doc) error {
	if err := c.crash(); err != nil {
		return err
	}
	return c.Collection.InsertMany(ctx, docs)
}

func (c crashingColl) UpdateMany(ctx context.Context, f query.Expr, u store.Update) (int64, error) {
	if err := c.crash(); err != nil {
		return 0, err
	}
	return c.Collection.UpdateMany(ctx, f, u)
}

func (c crashingColl) Upsert(ctx context.Context, id string, u store.Update) (store.Doc, error) {
	if err := c.crash(); err != nil {
		return nil, err
	}
	return c.Collection.Upsert(ctx, id, u)
}

// snapshots are random task and run snapshots, some of one entity.
func snapshots(seed uint64) []readmodel.Snapshot {
	rng := rand.New(rand.NewPCG(seed, seed))
	base := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	var out []readmodel.Snapshot
	for i := range 40 {
		at := base.Add(time.Duration(i) * time.Second)
		task := fmt.Sprintf("%024x", rng.IntN(15))
		out = append(out, readmodel.Snapshot{Collection: "tasks", Entity: task, Version: at, Gone: rng.IntN(8) == 0, Record: store.Doc{
			"consumer": fmt.Sprintf("c%d", rng.IntN(4)), "_status": []string{"open", "done"}[rng.IntN(2)], "updatedAt": at}})
		out = append(out, readmodel.Snapshot{Collection: "pipelineruns", Entity: fmt.Sprintf("r%d", i), Version: at, Record: store.Doc{
			"pipeline": "p1", "status": []string{"success", "failed"}[rng.IntN(2)], "startedAt": at, "endedAt": at, "totalDuration": float64(rng.IntN(3000)), "updatedAt": at}})
	}
	return out
}

func allRows(t *testing.T, st store.Store, ctx context.Context) map[string]store.Doc {
	out := map[string]store.Doc{}
	for _, m := range readmodel.Names() {
		docs, err := st.Collection(m).Find(ctx, store.FindOptions{})
		require.NoError(t, err)
		for _, d := range docs {
			for _, k := range []string{"_id", "customer", "lastBatch", "updatedAt", "createdAt"} {
				delete(d, k)
			}
			out[fmt.Sprint(m, "/", d["consumer"], d["pipeline"], d["day"])] = d
		}
	}
	return out
}

// TestABatchKilledHalfWayCountsOnce: whichever write of a batch fails,
// finishing it from its saved intent gives the rows of a batch that never
// failed, and applying the same snapshots again changes nothing.
func TestABatchKilledHalfWayCountsOnce(t *testing.T) {
	t.Parallel()
	st := testenv.NewStore(t, "")
	snaps := snapshots(7)
	ref := tenant.WithCustomer(context.Background(), "reference")
	writes, never := &atomic.Int32{}, &atomic.Int32{}
	require.NoError(t, (&readmodel.Engine{Store: crashingStore{Store: st, n: writes, at: never}}).Apply(ref, snaps, nil, []string{"x"}))
	want := allRows(t, st, ref)
	require.NotEmpty(t, want)
	total := writes.Load()
	for _, at := range []int32{1, 2, 5, total / 3, total / 2, total - 2, total - 1, total} {
		ctx := tenant.WithCustomer(context.Background(), fmt.Sprintf("crash-%d", at))
		n, stop := &atomic.Int32{}, &atomic.Int32{}
		stop.Store(at)
		err := (&readmodel.Engine{Store: crashingStore{Store: st, n: n, at: stop}}).Apply(ctx, snaps, nil, []string{"x"})
		require.Error(t, err, "write %d", at)
		engine := &readmodel.Engine{Store: st}
		require.NoError(t, engine.Resume(ctx))
		if at == 1 { // saving the intent failed: the batch never began, its events stay pending
			require.Empty(t, allRows(t, st, ctx))
		} else {
			require.Equal(t, want, allRows(t, st, ctx), "killed at write %d", at)
		}
		require.NoError(t, engine.Apply(ctx, snaps, nil, nil))
		require.Equal(t, want, allRows(t, st, ctx), "applied again after write %d", at)
	}
}
