package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestSelfCheckRunsOnRealServers proves the integration path: a workflow on
// the real Temporal server runs an activity that writes through the store
// to the real MongoDB-wire server, for the customer carried by the propagator.
func TestSelfCheckRunsOnRealServers(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	marker := store.NewID()
	run, err := p.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "selfcheck-" + marker, TaskQueue: p.TaskQueue},
		contract.WorkflowSelfCheck, contract.SelfCheckInput{Marker: marker})
	require.NoError(t, err)
	var res contract.SelfCheckResult
	require.NoError(t, run.Get(ctx, &res))
	require.True(t, res.Found)
	require.Equal(t, p.Customer.ID, res.Customer)

	doc, err := p.Store.Collection("selfchecks").Get(ctx, marker)
	require.NoError(t, err, "the activity's write is in the store")
	require.NotNil(t, doc["checkedAt"])

	other := tenant.WithCustomer(context.Background(), store.NewID())
	_, err = p.Store.Collection("selfchecks").Get(other, marker)
	require.ErrorIs(t, err, store.ErrNotFound, "another customer cannot see it")
}

// TestSelfCheckWithoutCustomerFailsClosed: a workflow started without a
// customer cannot touch customer data.
func TestSelfCheckWithoutCustomerFailsClosed(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := p.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: p.TaskQueue},
		contract.WorkflowSelfCheck, contract.SelfCheckInput{Marker: store.NewID()})
	require.NoError(t, err)
	var res contract.SelfCheckResult
	err = run.Get(ctx, &res)
	require.Error(t, err)
	require.Contains(t, err.Error(), "no customer")
}
