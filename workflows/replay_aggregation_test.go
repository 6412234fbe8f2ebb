package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"platform/kernel/query"
	"platform/modules/aggregation/readmodel"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestRecordHistoriesAggregation runs a customer's Aggregator through
// batches of events and a rebuild, and the AggregationRebuild that asked
// for it, and writes both histories to testdata: an Aggregator runs for
// as long as events come, so it is open during every deploy.
func TestRecordHistoriesAggregation(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/aggregator.json")
	}
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("*")
	r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "a@example.com"})
	require.Equal(t, 201, r.Status, string(r.Body))
	for range 3 {
		r := p.Do("POST", "/crm/tasks", tok, map[string]any{"title": "t", "consumer": r.Payload()["_id"]})
		require.Equal(t, 201, r.Status, string(r.Body))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	applied := func() bool {
		n, err := p.Store.Collection(readmodel.Inbox).Count(p.Ctx(), query.Eq("pending", false))
		return err == nil && n >= 3
	}
	require.Eventually(t, applied, time.Minute, 50*time.Millisecond)
	run, err := p.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "aggregation-rebuild-record",
		TaskQueue: contract.QueueOf(p.TaskQueue, contract.WorkflowAggregationRebuild)},
		contract.WorkflowAggregationRebuild, contract.AggregationRebuildInput{ID: "record", Customer: p.Customer.ID})
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	writeHistory(ctx, t, p.Temporal, run.GetID(), filepath.Join("testdata", "aggregation_rebuild.json"))
	writeHistory(ctx, t, p.Temporal, contract.AggregatorWorkflowID(p.Customer.ID), filepath.Join("testdata", "aggregator.json"))
}
