package maintenance_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"platform/activities/maintenance"
	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/workflows"
	"platform/workflows/contract"
)

// TestRetentionWorkflow runs the retention workflow in Temporal's test
// environment with the real activities over an embedded store and three
// customers: every activity call removes at most Batch records and visits
// at most CustomersPerRound customers, the workflow calls until every
// customer was seen, and only what is past its retention goes.
func TestRetentionWorkflow(t *testing.T) {
	st := testenv.SQLiteStore(t)
	now := time.Now().UTC()
	custs := []string{"c1", "c2", "c3"}
	for _, c := range custs {
		ctx := tenant.WithCustomer(context.Background(), c)
		var docs []store.Doc
		for i := range 3 {
			docs = append(docs, store.Doc{"_id": c + "-old-" + string(rune('a'+i)), "createdAt": now.Add(-48 * time.Hour)})
		}
		docs = append(docs, store.Doc{"_id": c + "-recent", "createdAt": now})
		require.NoError(t, st.Collection(webhook.DeliveriesCollection).InsertMany(ctx, docs))
		require.NoError(t, events.Subscribe(ctx, st, "unused.pattern"))
	}
	pruner := &countingPruner{Retention: &automation.Retention{Store: st, Events: time.Hour, Deliveries: 24 * time.Hour, Runs: time.Hour, SubscriptionGrace: time.Nanosecond}}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(workflows.Retention)
	env.RegisterActivity(&maintenance.Activities{Retention: pruner, Customers: customerList(custs), Batch: 2, CustomersPerRound: 2})

	time.Sleep(2 * time.Millisecond) // the patterns are older than the grace period
	env.ExecuteWorkflow(workflows.Retention)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res contract.RetentionResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.EqualValues(t, 9, res.Removed[contract.RetainDeliveries])
	require.EqualValues(t, 3, res.Removed["subscriptions"])
	require.LessOrEqual(t, pruner.maxLimit, 2, "no delete asks for more than a batch")
	require.Greater(t, res.Rounds, 5, "nine deliveries in batches of two, customers two a round")
	for _, c := range custs {
		ctx := tenant.WithCustomer(context.Background(), c)
		docs, err := st.Collection(webhook.DeliveriesCollection).Find(ctx, store.FindOptions{})
		require.NoError(t, err)
		require.Len(t, docs, 1, c)
		require.Equal(t, c+"-recent", docs[0]["_id"], "the recent record stays")
		sub, err := events.Subscribed(ctx, st, c, "unused.pattern")
		require.NoError(t, err)
		require.False(t, sub, c)
	}
}

// countingPruner notes the largest batch any Prune call asked for.
type countingPruner struct {
	*automation.Retention
	mu       sync.Mutex
	maxLimit int
}

func (p *countingPruner) Prune(ctx context.Context, customer, kind string, now time.Time, limit int) (int64, error) {
	p.mu.Lock()
	p.maxLimit = max(p.maxLimit, limit)
	p.mu.Unlock()
	return p.Retention.Prune(ctx, customer, kind, now, limit)
}

// customerList pages through a fixed list of customer ids.
type customerList []string

func (l customerList) CustomerIDs(_ context.Context, skip, limit int64) ([]string, error) {
	if skip >= int64(len(l)) {
		return nil, nil
	}
	return l[skip:min(skip+limit, int64(len(l)))], nil
}
