package workflows_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/modules/crm"
	"platform/workflows/contract"
)

// bugTasks lists the fixture customer's Bug tasks.
func (f *fixture) bugTasks() []store.Doc {
	f.t.Helper()
	docs, err := f.st.Collection("tasks").Find(f.ctx, store.FindOptions{Filter: query.Eq("type", crm.TypeBug)})
	require.NoError(f.t, err)
	return docs
}

// TestDeliveryFaultIsOneBugTask: a delivery whose attempts fail on the
// platform's side (the activity returns a plain error, as a store fault
// does) is parked like any failed delivery and files a Bug task; the same
// fault in three deliveries is one task counting three occurrences.
func TestDeliveryFaultIsOneBugTask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for range 3 {
		env := f.env(nil)
		env.OnActivity(contract.ActivityDeliverWebhook, mock.Anything, mock.Anything).
			Return(contract.DeliverOutput{}, errors.New("store: connection reset"))
		assert.Equal(t, webhook.StatusParked, f.run(env, 0).Status, "a faulty delivery is parked, to be retried by hand")
	}
	bugs := f.bugTasks()
	require.Len(t, bugs, 1, "one task per recurring fault: %v", bugs)
	assert.Equal(t, int64(3), store.Int(bugs[0]["occurrences"]))
	assert.Contains(t, bugs[0]["title"], "workflow WebhookDelivery, attempt")
	assert.Equal(t, resource.PlatformActor, bugs[0]["createdBy"], "filed by the platform")
}

// TestReceiverFailureFilesNoBugTask: a receiver that answers 500 on every
// attempt, or 410, is an outcome of the delivery, not a fault of the
// platform: no Bug task.
func TestReceiverFailureFilesNoBugTask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	assert.Equal(t, webhook.StatusParked, f.run(f.env(nil), 0).Status)
	f.status.Store(http.StatusGone)
	assert.Equal(t, webhook.StatusDeactivated, f.run(f.env(nil), 0).Status)
	assert.Empty(t, f.bugTasks())
}

// TestDispatchFaultFilesABugTask: a dispatch that fails on the platform's
// side (here its targets cannot be read) fails, and files a Bug task
// naming the step, counted again when the dispatch is run again.
func TestDispatchFaultFilesABugTask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for range 2 {
		env := f.env(nil)
		env.OnActivity(contract.ActivityEventTargets, mock.Anything, mock.Anything).
			Return(contract.EventTargetsOutput{}, temporal.NewNonRetryableApplicationError("the store refused the query", "StoreFault", nil))
		env.ExecuteWorkflow(contract.WorkflowDispatchEvent, contract.DispatchInput{EventID: f.eventID, Event: "consumers.created"})
		require.True(t, env.IsWorkflowCompleted())
		require.Error(t, env.GetWorkflowError(), "the dispatch fails")
	}
	bugs := f.bugTasks()
	require.Len(t, bugs, 1, "%v", bugs)
	assert.Contains(t, bugs[0]["title"], "workflow DispatchEvent, event targets")
	assert.Equal(t, "workflow DispatchEvent, event targets | StoreFault", bugs[0]["signature"])
	assert.Equal(t, int64(2), store.Int(bugs[0]["occurrences"]))
}
