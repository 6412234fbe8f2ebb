package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/cmd/platform/app"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/config/states"
	"platform/test/testenv"
)

// TestStatesRegisteredOnceAcrossRestarts: three starts of the platform
// on one store register the states once; the later starts write nothing,
// and the module state cache matches the registry.
func TestStatesRegisteredOnceAcrossRestarts(t *testing.T) {
	t.Parallel()
	st := testenv.NewStore(t, "")
	first := startOn(t, st)
	require.Positive(t, first.States.Inserted)
	stored := allStates(t, st)
	require.Len(t, stored, first.States.Inserted)
	t.Logf("%d platform states registered", len(stored))

	for range 2 {
		again := startOn(t, st)
		assert.Equal(t, states.Result{Unchanged: first.States.Inserted}, again.States, "a restart writes nothing")
	}
	assert.Equal(t, stored, allStates(t, st), "the same records, not one touched")

	byKey := map[string]store.Doc{}
	for _, d := range stored {
		byKey[d[states.FieldType].(string)+" "+d[states.FieldName].(string)] = d
		assert.Equal(t, "platform", d[states.FieldAppName], "the release name is the default app name")
	}
	table := byKey["table config.computingentities"]
	require.NotNil(t, table, "a table per resource")
	assert.Contains(t, table["filters"], "awsState")
	assert.Equal(t, "config", table[states.FieldModule])
	var actions []any
	for _, a := range table["actions"].([]any) {
		actions = append(actions, a.(map[string]any)["name"])
	}
	assert.Subset(t, actions, []any{"list", "create", "start", "stop", "terminate"})
	assert.NotNil(t, byKey["right config.computingentities.start"], "a right per right")
	assert.NotNil(t, byKey["right config.credentials.decrypt"])
	assert.NotNil(t, byKey["module-overview crm"], "an overview per module")

	cache, err := st.Global(states.CacheCollection).Find(context.Background(), store.FindOptions{Sort: []store.SortField{{Field: states.FieldModule}}})
	require.NoError(t, err)
	want := states.Summaries("platform", stored)
	require.Len(t, cache, len(want), "one summary per module")
	for i := range want {
		for k, v := range want[i] {
			assert.Equal(t, v, cache[i][k], "%s of %s", k, want[i][states.FieldModule])
		}
	}
}

func startOn(t *testing.T, st store.Store) *app.App {
	t.Helper()
	cfg, err := settings.Load("test", nil)
	require.NoError(t, err)
	cfg.DataDir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := app.New(ctx, cfg, st, nil, testenv.Logger(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func allStates(t *testing.T, st store.Store) []store.Doc {
	t.Helper()
	docs, err := st.Global(states.Collection).Find(context.Background(), store.FindOptions{Filter: query.Eq(states.FieldAppName, "platform"),
		Sort: []store.SortField{{Field: "_id"}}})
	require.NoError(t, err)
	return docs
}
