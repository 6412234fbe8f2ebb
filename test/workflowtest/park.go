// Package workflowtest runs the platform's workflows in Temporal's
// time-skipping environment against a test platform's store, for tests
// that need a workflow's end state without waiting out its timers.
package workflowtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"platform/activities/delivery"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/worker"
	"platform/workflows/contract"
)

// ParkDelivery runs the first delivery round of the event to the webhook
// (its five attempts, 15 minutes of timers, in a moment) and requires the
// delivery parked, as the real workflow leaves it.
func ParkDelivery(t *testing.T, p *testenv.Platform, eventID, hookID string) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(testenv.Logger(t)))
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute) // the default 3 s is too short for a busy CI machine under -race
	env.SetContextPropagators([]workflow.ContextPropagator{tenant.Propagator{}})
	cust, err := converter.GetDefaultDataConverter().ToPayload(p.Customer.ID)
	require.NoError(t, err)
	env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{tenant.HeaderKey: cust}})
	worker.Register(env, worker.Activities{
		Delivery: &delivery.Activities{Store: p.Store, Log: p.Log, Outbound: p.Outbound, WebhookTimeout: 5 * time.Second, Vault: p.Vault},
	})
	env.ExecuteWorkflow(contract.WorkflowWebhookDelivery, contract.DeliveryInput{EventID: eventID, Event: "consumers.created", WebhookID: hookID})
	require.NoError(t, env.GetWorkflowError())
	var res contract.DeliveryResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, webhook.StatusParked, res.Status)
}
