package maintenance_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"platform/activities/maintenance"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/oauth"
	"platform/test/testenv"
	"platform/workflows"
	"platform/workflows/contract"
)

// TestOAuthSweepWorkflow runs the sweep workflow in Temporal's test
// environment with the real activity over an embedded store: it calls the
// activity by its registered name until nothing expired is left, and only
// live records remain.
func TestOAuthSweepWorkflow(t *testing.T) {
	st := testenv.SQLiteStore(t)
	ctx := context.Background()
	now := time.Now().UTC()
	for i, exp := range []time.Time{now.Add(-3 * time.Hour), now.Add(-2 * time.Hour), now.Add(-2 * time.Hour), now.Add(time.Hour)} {
		for _, coll := range []string{oauth.CodesCollection, oauth.AccessCollection} {
			require.NoError(t, st.Global(coll).Insert(ctx, store.Doc{"_id": string(rune('a' + i)), "expiresAt": exp}))
		}
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(workflows.OAuthSweep)
	env.RegisterActivity(&maintenance.Activities{OAuth: &oauth.Sweeper{Store: st, RefreshTTL: time.Hour, Forget: time.Minute, Batch: 2, MaxBatches: 1}})

	env.ExecuteWorkflow(workflows.OAuthSweep)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res contract.OAuthSweepResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, 2, res.Rounds, "three expired per collection, two per round")
	require.EqualValues(t, 3, res.Removed[oauth.CodesCollection])
	require.EqualValues(t, 3, res.Removed[oauth.AccessCollection])
	for _, coll := range []string{oauth.CodesCollection, oauth.AccessCollection} {
		docs, err := st.Global(coll).Find(ctx, store.FindOptions{Filter: query.AllOf()})
		require.NoError(t, err)
		require.Len(t, docs, 1, coll)
		require.Equal(t, "d", docs[0]["_id"], "the live record stays")
	}
}
