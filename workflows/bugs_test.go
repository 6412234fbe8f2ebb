package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/runs"
	"platform/modules/crm"
)

// TestRecurringFaultIsOneBugTask: a fault of the platform inside a run (a
// deployed function whose frozen code is gone from the store) files a Bug
// task of the run's customer, through the record service; the same fault
// three times is one task counting three occurrences.
func TestRecurringFaultIsOneBugTask(t *testing.T) {
	f := newPipeFixture(t)
	fn := f.function(`return {ok: true}`)
	p := f.pipeline(`{"name": "broken", "steps": [{"id": "f", "type": "function", "function": "` + fn + `"}]}`)
	_, err := f.st.Collection(runs.FunctionVersions).Delete(f.ctx, query.ID(runs.FunctionVersionID(fn, 1)))
	require.NoError(t, err)
	var runIDs []string
	for range 3 {
		env := f.newEnv()
		runIDs = append(runIDs, f.start(env, p, nil))
		assert.Equal(t, "internal", failed(t, env).Kind)
	}
	bugs, err := f.st.Collection("tasks").Find(f.ctx, store.FindOptions{Filter: query.Eq("type", crm.TypeBug)})
	require.NoError(t, err)
	require.Len(t, bugs, 1, "one task per recurring fault: %v", bugs)
	bug := bugs[0]
	assert.Equal(t, int64(3), store.Int(bug["occurrences"]))
	assert.Equal(t, runIDs[2], bug["debugId"], "the latest occurrence")
	assert.Contains(t, bug["title"], "workflow PipelineRun, function step")
	assert.Contains(t, bug["description"], runIDs[0], "the first occurrence")
	assert.NotEmpty(t, bug["lastSeenAt"])
	assert.Equal(t, "000000000000000000000000", bug["createdBy"], "filed by the platform")
	assert.Equal(t, "open", bug["_status"])
}
