package automation_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"platform/activities/delivery"
	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/worker"
	"platform/workflows/contract"
)

// storedEvent stores a consumers.created event and returns its id.
func storedEvent(t *testing.T, p *testenv.Platform) string {
	id := store.NewID()
	require.NoError(t, p.Store.Collection(events.Collection).Insert(p.Ctx(), store.Doc{
		"_id": id, "name": "consumers.created", "timestamp": time.Now().UTC().Truncate(time.Millisecond),
		"data": store.Doc{"_id": store.NewID(), "email": "queued@example.com"}, "dispatched": true,
	}))
	return id
}

// deliveryActs are the platform's delivery activities with the given
// retrier starter.
func deliveryActs(p *testenv.Platform, retriers delivery.RetrierStarter) *delivery.Activities {
	return &delivery.Activities{Store: p.Store, Log: p.Log, Outbound: p.Outbound, WebhookTimeout: 5 * time.Second,
		Vault: p.Vault, Records: p.Service, Retriers: retriers}
}

// noStart is a retrier starter for a retrier the test runs itself.
type noStart struct{}

func (noStart) EnsureRetrier(context.Context, string, string) error { return nil }

// parkByRetrier queues the delivery with no first attempt and runs the
// webhook's retrier in the time-skipping environment against the
// platform's store until it ends: five attempts, 15 minutes in a moment.
func parkByRetrier(t *testing.T, p *testenv.Platform, eventID, hookID string) {
	acts := deliveryActs(p, noStart{})
	require.NoError(t, acts.QueueRetries(p.Ctx(), []delivery.Failed{{EventID: eventID, Event: "consumers.created", WebhookID: hookID}}))
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(testenv.Logger(t)))
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute)
	env.SetContextPropagators([]workflow.ContextPropagator{tenant.Propagator{}})
	cust, err := converter.GetDefaultDataConverter().ToPayload(p.Customer.ID)
	require.NoError(t, err)
	env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{tenant.HeaderKey: cust}})
	worker.Register(env, worker.Activities{Delivery: acts})
	env.ExecuteWorkflow(contract.WorkflowWebhookRetrier, contract.RetrierInput{WebhookID: hookID})
	require.NoError(t, env.GetWorkflowError())
}

// TestRetrierParkedDeliveryIsRetriedByID: a delivery the retrier parked
// (and one queued for it: 409, it is not the client's yet) is retried by
// id like any parked one; the manual round delivers, and the record keeps
// the attempts of both rounds.
func TestRetrierParkedDeliveryIsRetriedByID(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	rc := newReceiver(t)
	rc.status.Store(http.StatusServiceUnavailable)
	tok := p.Token("automation.*")
	hookID := createHook(t, p, tok, rc, hookSpec{path: "/hook", events: []string{"consumers.created"}, secret: secret, active: true})
	other := createHook(t, p, tok, rc, hookSpec{path: "/other", events: []string{"consumers.created"}, active: true})
	queued := storedEvent(t, p)
	require.NoError(t, deliveryActs(p, noStart{}).QueueRetries(p.Ctx(), []delivery.Failed{{EventID: queued, Event: "consumers.created", WebhookID: other}}))
	queuedID := webhook.RetryRecordID(webhook.DeliveryID(queued, other))
	r := p.Do("POST", "/automation/webhookretries/"+queuedID+"/actions/retry", tok, map[string]any{})
	require.Equal(t, 409, r.Status, "queued for the retrier: %s", r.Body)

	eventID := storedEvent(t, p)
	parkByRetrier(t, p, eventID, hookID)
	require.Len(t, rc.requests("/hook"), 5)
	id := webhook.RetryRecordID(webhook.DeliveryID(eventID, hookID))
	rec := p.Do("GET", "/automation/webhookretries/"+id, tok, nil).Payload()
	require.Equal(t, webhook.StatusParked, rec["status"])
	require.Len(t, rec["attempts"], 5)

	rc.status.Store(http.StatusOK)
	r = p.Do("POST", "/automation/webhookretries/"+id+"/actions/retry", tok, map[string]any{})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.EqualValues(t, 1, r.Payload()["round"])
	require.Eventually(t, func() bool {
		return p.Do("GET", "/automation/webhookretries/"+id, tok, nil).Payload()["status"] == webhook.StatusDelivered
	}, 30*time.Second, 100*time.Millisecond)
	rec = p.Do("GET", "/automation/webhookretries/"+id, tok, nil).Payload()
	attempts := rec["attempts"].([]any)
	require.Len(t, attempts, 6, "the retrier's five and the manual round's one")
	require.EqualValues(t, 0, attempts[4].(map[string]any)["round"])
	require.EqualValues(t, 1, attempts[5].(map[string]any)["round"])
	require.EqualValues(t, 200, attempts[5].(map[string]any)["statusCode"])
}

// TestRetriersOnTheRealServers: QueueRetries on the real Temporal server
// starts the webhook's retrier (id webhook-retrier-<webhook>, found by its
// search attributes), which the worker runs to deliver; queueing again,
// and ensuring from other processes at once, starts no second one.
func TestRetriersOnTheRealServers(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	rc := newReceiver(t)
	tok := p.Token("automation.*")
	hookID := createHook(t, p, tok, rc, hookSpec{path: "/hook", events: []string{"consumers.created"}, active: true})
	starter := &temporalx.Starter{Client: p.Temporal, TaskQueue: p.TaskQueue}
	acts := deliveryActs(p, delivery.NewRetriers(starter))
	eventID := storedEvent(t, p)
	list := []delivery.Failed{{EventID: eventID, Event: "consumers.created", WebhookID: hookID}}
	require.NoError(t, acts.QueueRetries(p.Ctx(), list))
	require.NoError(t, acts.QueueRetries(p.Ctx(), list))
	var wg sync.WaitGroup
	for range 4 { // other processes, without the first one's memory
		wg.Go(func() {
			require.NoError(t, delivery.NewRetriers(starter).EnsureRetrier(context.Background(), p.Customer.ID, hookID))
		})
	}
	wg.Wait()

	got := rc.waitFor(t, "/hook", 1, 30*time.Second)
	require.Equal(t, webhook.DeliveryID(eventID, hookID), got[0].Header.Get(webhook.HeaderDelivery))
	require.Eventually(t, func() bool {
		rec, err := p.Store.Collection(webhook.RetriesCollection).Get(p.Ctx(), webhook.RetryRecordID(webhook.DeliveryID(eventID, hookID)))
		return err == nil && rec["status"] == webhook.StatusDelivered
	}, 30*time.Second, 100*time.Millisecond)
	desc, err := p.Temporal.DescribeWorkflowExecution(context.Background(), contract.RetrierWorkflowID(hookID), "")
	require.NoError(t, err)
	require.Contains(t, desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields(), contract.AttrWebhook)
	time.Sleep(time.Second)
	require.Len(t, rc.requests("/hook"), 1, "one retrier, one delivery")

	// A delivery queued without its retrier (a process that died in
	// between) is picked up by the overdue check once late.
	stray := createHook(t, p, tok, rc, hookSpec{path: "/stray", events: []string{"consumers.created"}, active: true})
	late := storedEvent(t, p)
	require.NoError(t, deliveryActs(p, noStart{}).QueueRetries(p.Ctx(), []delivery.Failed{{EventID: late, Event: "consumers.created", WebhookID: stray}}))
	n, err := acts.StartOverdueRetriers(p.Ctx(), time.Now())
	require.NoError(t, err)
	require.Zero(t, n, "not late yet")
	n, err = acts.StartOverdueRetriers(p.Ctx(), time.Now().Add(delivery.OverdueAfter+time.Second))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	rc.waitFor(t, "/stray", 1, 30*time.Second)
}

// TestDisabledWebhookIsEnabledAgain: a webhook the breaker disabled shows
// why and since when; POST /webhooks/:id/actions/enable (right
// automation.webhooks.edit) turns it on, clears the disabled fields and
// the streak, and announces webhooks.enabled once. Both events are
// declared: GET /events lists them and webhooks may subscribe.
func TestDisabledWebhookIsEnabledAgain(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	p.CheckOpenAPI("automation")
	rc := newReceiver(t)
	tok := p.Token("automation.*")
	hookID := createHook(t, p, tok, rc, hookSpec{path: "/hook", events: []string{"consumers.created"}, secret: secret, active: true})
	disable := func() {
		_, err := p.Store.Collection(webhook.Collection).Update(p.Ctx(), query.ID(hookID), store.Update{Set: store.Doc{
			"active": false, "disabledAt": time.Now().UTC().Truncate(time.Millisecond), "disabledReason": "disabled by the platform: test",
			"failingSince": time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond), "parkedInRow": int64(50),
		}})
		require.NoError(t, err)
	}
	disable()
	got := p.Do("GET", "/automation/webhooks/"+hookID, tok, nil).Payload()
	require.Equal(t, "disabled by the platform: test", got["disabledReason"])
	require.EqualValues(t, 50, got["parkedInRow"])

	enable := "/automation/webhooks/" + hookID + "/actions/enable"
	require.Equal(t, 403, p.Do("POST", enable, p.Token("automation.webhooks.view"), map[string]any{}).Status)
	r := p.Do("POST", enable, p.Token("automation.webhooks.edit"), map[string]any{})
	require.Equal(t, 200, r.Status, string(r.Body))
	on := r.Payload()
	require.Equal(t, true, on["active"])
	for _, k := range []string{"disabledAt", "disabledReason", "failingSince", "parkedInRow", "secret"} {
		require.NotContains(t, on, k)
	}
	require.Equal(t, 200, p.Do("POST", enable, tok, map[string]any{}).Status, "enabling an enabled webhook is harmless")
	evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("name", "webhooks.enabled")})
	require.NoError(t, err)
	require.Len(t, evs, 1, "one event for the one change")
	require.NotContains(t, evs[0]["data"], "secret")

	// active: true from the client clears them too.
	disable()
	r = p.Do("PATCH", "/automation/webhooks/"+hookID, tok, map[string]any{"active": true})
	require.Equal(t, 200, r.Status, string(r.Body))
	for _, k := range []string{"disabledAt", "disabledReason", "failingSince", "parkedInRow"} {
		require.NotContains(t, r.Payload(), k)
	}

	names := p.Do("GET", "/events", tok, nil)
	require.Equal(t, 200, names.Status)
	require.Contains(t, string(names.Body), `"webhooks.disabled"`)
	require.Contains(t, string(names.Body), `"webhooks.enabled"`)
	createHook(t, p, tok, rc, hookSpec{path: "/watch", events: []string{"webhooks.disabled", "webhooks.enabled"}, active: true})
}
