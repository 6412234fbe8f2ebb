package workflows_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	acomputing "platform/activities/computing"
	"platform/kernel/outbound"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/config/computing"
	"platform/test/testenv"
	"platform/worker"
	"platform/workflows/contract"
)

// computingRun runs one start of a fresh entity in the time-skipping
// environment against the simulator, whose clock is the environment's:
// moves of minutes take no time. It answers the settled entity.
func computingRun(t *testing.T, delay, deadline time.Duration) store.Doc {
	t.Helper()
	st := testenv.NewStore(t, "")
	a := platformOn(t, st)
	ctx := tenant.WithCustomer(context.Background(), store.NewID())
	r := a.Registry.Get(computing.Module, computing.Collection)
	rec, err := a.Service.Create(ctx, r, map[string]any{"name": "slow", "type": computing.TypeAWS})
	require.NoError(t, err)
	id := rec["_id"].(string)
	const wf = "computing-test-start"
	_, err = a.Service.Apply(ctx, r, query.ID(id), resource.Change{Set: store.Doc{computing.FieldPendingAction: computing.Start, computing.FieldWorkflowID: wf}})
	require.NoError(t, err)

	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(testenv.Logger(t)))
	env := s.NewTestWorkflowEnvironment()
	env.SetContextPropagators([]workflow.ContextPropagator{tenant.Propagator{}})
	cust, _ := tenant.Customer(ctx)
	p, err := converter.GetDefaultDataConverter().ToPayload(cust)
	require.NoError(t, err)
	env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{tenant.HeaderKey: p}})
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: wf})

	srv := httptest.NewServer(&computing.Simulator{Delay: delay, Now: env.Now})
	t.Cleanup(srv.Close)
	g, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	c, err := computing.NewClient(srv.URL, "", 5*time.Second, g.Client(5*time.Second))
	require.NoError(t, err)
	worker.Register(env, worker.Activities{Computing: &acomputing.Activities{Entities: &computing.Entities{Records: a.Service, Provider: c}}})

	env.ExecuteWorkflow(contract.WorkflowComputingAction, contract.ComputingActionInput{EntityID: id, Action: computing.Start,
		Poll: time.Minute, Deadline: env.Now().Add(deadline)})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	got, err := a.Service.Load(ctx, r, id)
	require.NoError(t, err)
	assert.NotContains(t, got, computing.FieldPendingAction, "settled")
	return got
}

// TestComputingActionWaitsForTheMove: a start that takes ten minutes is
// read every minute until it lands.
func TestComputingActionWaitsForTheMove(t *testing.T) {
	t.Parallel()
	got := computingRun(t, 10*time.Minute, time.Hour)
	assert.Equal(t, computing.Running, got[computing.StateAWS])
	assert.Equal(t, "done", got[computing.FieldLastAction].(store.Doc)["outcome"])
}

// TestComputingActionGivesUpAtTheDeadline: a move slower than the
// deadline fails the action; the entity keeps its state and says why.
func TestComputingActionGivesUpAtTheDeadline(t *testing.T) {
	t.Parallel()
	got := computingRun(t, 2*time.Hour, 5*time.Minute)
	assert.Equal(t, computing.Stopped, got[computing.StateAWS], "pending is no stable state")
	last := got[computing.FieldLastAction].(store.Doc)
	assert.Equal(t, "failed", last["outcome"])
	assert.Contains(t, last["failure"], "did not finish the start by the deadline")
}
