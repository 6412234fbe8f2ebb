package aggregation_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"platform/kernel/store"
	"platform/modules/aggregation/readmodel"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestReadModelsEqualARecount: after a seeded random workload of every
// source (tasks, notes, mail logs, unsubscribes, run ends, webhook
// attempts), each read model equals a recount from the source records;
// a rebuild from the records gives the same rows; an event applied
// again, or an older snapshot, changes nothing.
func TestReadModelsEqualARecount(t *testing.T) {
	p := newPlatform(t)
	w := newWorkload(t, p, 19)
	w.run(120)
	settle(t, p, p.Ctx())
	rc := recount{t: t, p: p, ctx: p.Ctx()}
	rc.check(w.deleted)

	t.Run("served with the list conventions, rights and tenant isolation", func(t *testing.T) {
		checkAPI(t, p, w.consumers[0])
	})

	t.Run("an event applied twice counts once", func(t *testing.T) {
		before := snapshot(t, p, p.Ctx())
		evs, err := p.Store.Collection("events").Find(p.Ctx(), store.FindOptions{Limit: 200})
		require.NoError(t, err)
		require.NoError(t, w.feed.Events(p.Ctx(), evs), "dropped by the inbox: already there")
		// Straight to the engine, past the inbox: the contributions refuse them.
		snaps := make([]readmodel.Snapshot, 0, len(evs))
		for _, ev := range evs {
			data, _ := ev["data"].(store.Doc)
			coll, verb, _ := cut(ev["name"].(string))
			snaps = append(snaps, readmodel.Snapshot{Collection: coll, Entity: data["_id"].(string), Version: version(data), Gone: verb == "deleted", Record: data})
		}
		engine := &readmodel.Engine{Store: p.Store}
		require.NoError(t, engine.Apply(p.Ctx(), snaps, nil, nil))
		require.NoError(t, engine.Apply(p.Ctx(), snaps, nil, nil))
		settle(t, p, p.Ctx())
		require.Equal(t, before, snapshot(t, p, p.Ctx()))
	})

	t.Run("a rebuild equals the incremental rows", func(t *testing.T) {
		before := snapshot(t, p, p.Ctx())
		rebuild(t, p, contract.AggregationRebuildInput{ID: "r1", Customer: p.Customer.ID})
		after := snapshot(t, p, p.Ctx())
		// lastActivityAt keeps the writes of deleted records only while
		// counted incrementally: a rebuild sees the records left.
		for k, row := range after[readmodel.ConsumerActivity] {
			old := before[readmodel.ConsumerActivity][k]
			if at, ok := row["lastActivityAt"].(time.Time); ok {
				require.False(t, at.After(old["lastActivityAt"].(time.Time)), k)
			}
			delete(row, "lastActivityAt")
			delete(old, "lastActivityAt")
		}
		require.Equal(t, nonEmptyAll(before), nonEmptyAll(after))
		st, err := (&readmodel.Engine{Store: p.Store}).Status(p.Ctx())
		require.NoError(t, err)
		require.Equal(t, "r1", st["rebuiltId"])
		require.Nil(t, st["rebuild"])
	})

	t.Run("writes after a rebuild are counted on top of it", func(t *testing.T) {
		w.deleted = map[string]time.Time{} // the rebuild forgot them
		w.run(40)
		settle(t, p, p.Ctx())
		rc.check(w.deleted)
	})
}

func cut(name string) (string, string, bool) {
	for i := range name {
		if name[i] == '.' {
			return name[:i], name[i+1:], true
		}
	}
	return name, "", false
}

func version(data store.Doc) time.Time {
	if t, ok := data["updatedAt"].(time.Time); ok {
		return t
	}
	t, _ := data["createdAt"].(time.Time)
	return t
}

// snapshot reads every model's rows of the customer in ctx.
func snapshot(t *testing.T, p *testenv.Platform, ctx context.Context) map[string]map[string]store.Doc {
	out := map[string]map[string]store.Doc{}
	for _, m := range readmodel.Names() {
		out[m] = rows(t, p, ctx, m, "_id")
	}
	return out
}

func nonEmptyAll(s map[string]map[string]store.Doc) map[string]map[string]store.Doc {
	out := map[string]map[string]store.Doc{}
	for m, rs := range s {
		out[m] = nonEmpty(rs)
	}
	return out
}

// rebuild runs AggregationRebuild and waits for it.
func rebuild(t *testing.T, p *testenv.Platform, in contract.AggregationRebuildInput) contract.AggregationRebuildProgress {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := p.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "aggregation-rebuild-" + in.ID + "-" + p.Customer.ID,
		TaskQueue: contract.QueueOf(p.TaskQueue, contract.WorkflowAggregationRebuild)}, contract.WorkflowAggregationRebuild, in)
	require.NoError(t, err)
	var out contract.AggregationRebuildProgress
	require.NoError(t, run.Get(ctx, &out))
	require.True(t, out.Done)
	return out
}
