package workflows_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"platform/activities/delivery"
	"platform/activities/system"
	"platform/cmd/platform/app"
	"platform/kernel/events"
	"platform/kernel/outbound"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/worker"
	"platform/workflows/contract"
)

// fixture is a customer with one webhook pointing at a local receiver and
// one stored event, on the real store; workflows run in the time-skipping
// test environment, so five attempts over fifteen minutes take seconds.
type fixture struct {
	t        *testing.T
	st       store.Store
	ctx      context.Context
	customer string
	eventID  string
	hookID   string
	guard    *outbound.Guard // opens 127.0.0.1, where the receiver listens
	status   atomic.Int32    // the receiver's answer
	mu       sync.Mutex
	got      []http.Header
	app      *app.App // the platform wired on st: its record service and Bug recorder
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, st: testenv.NewStore(t, ""), customer: store.NewID(), eventID: store.NewID(), hookID: store.NewID()}
	f.ctx = tenant.WithCustomer(context.Background(), f.customer)
	f.app = platformOn(t, f.st)
	var err error
	f.guard, err = outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	f.status.Store(http.StatusInternalServerError)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.got = append(f.got, r.Header.Clone())
		f.mu.Unlock()
		w.WriteHeader(int(f.status.Load()))
	}))
	t.Cleanup(srv.Close)
	require.NoError(t, f.st.Collection(webhook.Collection).Insert(f.ctx, store.Doc{
		"_id": f.hookID, "name": "hook", "url": srv.URL + "/hook", "events": []any{"*"}, "active": true,
		"secret": "0123456789abcdef0123456789abcdef"}))
	require.NoError(t, f.st.Collection(events.Collection).Insert(f.ctx, store.Doc{
		"_id": f.eventID, "name": "consumers.created", "timestamp": time.Now().UTC().Truncate(time.Millisecond),
		"data": store.Doc{"_id": store.NewID(), "email": "ada@example.com", "first_name": "Ada"}, "dispatched": true}))
	return f
}

// platformOn is the platform wired on st (no Temporal: events are stored,
// nothing dispatches them).
func platformOn(t *testing.T, st store.Store) *app.App {
	t.Helper()
	cfg, err := settings.Load("test", nil)
	require.NoError(t, err)
	cfg.DataDir = t.TempDir() // the master key it generates stays out of the tree
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := app.New(ctx, cfg, st, nil, testenv.Logger(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func (f *fixture) hits() []http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]http.Header{}, f.got...)
}

// env returns a time-skipping environment running the real activities for
// the fixture's customer; starts collects the (test clock) start time of
// every delivery attempt.
func (f *fixture) env(starts *[]time.Time) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(testenv.Logger(f.t)))
	env := s.NewTestWorkflowEnvironment()
	env.SetContextPropagators([]workflow.ContextPropagator{tenant.Propagator{}})
	p, err := converter.GetDefaultDataConverter().ToPayload(f.customer)
	require.NoError(f.t, err)
	env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{tenant.HeaderKey: p}})
	worker.Register(env, worker.Activities{
		Delivery: &delivery.Activities{Store: f.st, Log: testenv.Logger(f.t), Outbound: f.guard, WebhookTimeout: 5 * time.Second, Records: f.app.Service},
		System:   &system.Activities{Store: f.st, Bugs: f.app.Bugs},
	})
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == "DeliverWebhook" && starts != nil {
			*starts = append(*starts, env.Now())
		}
	})
	return env
}

func (f *fixture) run(env *testsuite.TestWorkflowEnvironment, round int) contract.DeliveryResult {
	env.ExecuteWorkflow(contract.WorkflowWebhookDelivery, contract.DeliveryInput{EventID: f.eventID, Event: "consumers.created", WebhookID: f.hookID, Round: round})
	require.True(f.t, env.IsWorkflowCompleted())
	require.NoError(f.t, env.GetWorkflowError())
	var res contract.DeliveryResult
	require.NoError(f.t, env.GetWorkflowResult(&res))
	return res
}

func (f *fixture) retryRecord() store.Doc {
	d, err := f.st.Collection(webhook.RetriesCollection).Get(f.ctx, webhook.RetryRecordID(webhook.DeliveryID(f.eventID, f.hookID)))
	require.NoError(f.t, err)
	return d
}

// TestFailingReceiverGetsFiveAttemptsThenParksAndRetryDelivers: 5 attempts
// at 1, 2, 4 and 8 minute spacing, one webhookretries record with each
// attempt, then a retry round (as POST /webhookretries/:id/actions/retry
// starts it) delivers once the receiver recovers, under the same delivery id.
func TestFailingReceiverGetsFiveAttemptsThenParksAndRetryDelivers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var starts []time.Time
	res := f.run(f.env(&starts), 0)
	require.Equal(t, webhook.StatusParked, res.Status)
	require.Len(t, starts, 5)
	require.Len(t, f.hits(), 5, "the receiver saw exactly 5 attempts")
	for i, want := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute} {
		require.InDelta(t, want.Seconds(), starts[i+1].Sub(starts[i]).Seconds(), 1, "wait before attempt %d", i+2)
	}
	rec := f.retryRecord()
	require.Equal(t, webhook.StatusParked, rec["status"])
	attempts := rec["attempts"].([]any)
	require.Len(t, attempts, 5)
	for i, a := range attempts {
		require.EqualValues(t, i+1, a.(store.Doc)["attempt"])
		require.EqualValues(t, 500, a.(store.Doc)["statusCode"])
		require.NotEmpty(t, a.(store.Doc)["error"])
		require.Contains(t, a.(store.Doc), "durationMs")
	}
	require.NotNil(t, rec["firstAttemptAt"])
	require.NotNil(t, rec["lastAttemptAt"])
	n, err := f.st.Collection(webhook.RetriesCollection).Count(f.ctx, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "one parked record")

	// The retry action claims round 1, then starts it.
	_, err = f.st.Collection(webhook.RetriesCollection).Update(f.ctx, query.ID(rec["_id"].(string)),
		store.Update{Set: store.Doc{"status": webhook.StatusRetrying, "round": int64(1)}})
	require.NoError(t, err)
	f.status.Store(http.StatusOK)
	starts = nil
	res = f.run(f.env(&starts), 1)
	require.Equal(t, webhook.StatusDelivered, res.Status)
	require.Len(t, starts, 1)
	rec = f.retryRecord()
	require.Equal(t, webhook.StatusDelivered, rec["status"])
	require.Len(t, rec["attempts"], 6, "both rounds' attempts")
	hits := f.hits()
	require.Len(t, hits, 6)
	for _, h := range hits {
		require.Equal(t, webhook.DeliveryID(f.eventID, f.hookID), h.Get(webhook.HeaderDelivery), "the same delivery id on every attempt and round")
	}
}

// TestGoneDeactivatesTheWebhook: 410 ends the delivery after one attempt,
// deactivates the webhook and parks nothing.
func TestGoneDeactivatesTheWebhook(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.status.Store(http.StatusGone)
	var starts []time.Time
	res := f.run(f.env(&starts), 0)
	require.Equal(t, webhook.StatusDeactivated, res.Status)
	require.Len(t, starts, 1, "not retried")
	hook, err := f.st.Collection(webhook.Collection).Get(f.ctx, f.hookID)
	require.NoError(t, err)
	require.Equal(t, false, hook["active"])
	require.Contains(t, hook["deactivatedReason"], "410")
	n, err := f.st.Collection(webhook.RetriesCollection).Count(f.ctx, nil)
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestGoneDeactivationIsStampedAndAnnounced: turning a webhook off after a
// 410 is a write of the platform through the record service: updatedAt
// moves, modifiedBy names the platform, and webhooks.updated announces the
// webhook as it now is (without its secret).
func TestGoneDeactivationIsStampedAndAnnounced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.status.Store(http.StatusGone)
	before := time.Now().UTC().Truncate(time.Millisecond)
	require.Equal(t, webhook.StatusDeactivated, f.run(f.env(nil), 0).Status)
	hook, err := f.st.Collection(webhook.Collection).Get(f.ctx, f.hookID)
	require.NoError(t, err)
	require.Equal(t, false, hook["active"])
	require.Equal(t, resource.PlatformActor, hook["modifiedBy"], "the platform made the change")
	updated, ok := hook["updatedAt"].(time.Time)
	require.True(t, ok, "updatedAt is set: %v", hook["updatedAt"])
	require.False(t, updated.Before(before), "updatedAt %s is the deactivation's, not older than %s", updated, before)
	evs, err := f.st.Collection(events.Collection).Find(f.ctx, store.FindOptions{Filter: query.Eq("name", "webhooks.updated")})
	require.NoError(t, err)
	require.Len(t, evs, 1, "one webhooks.updated event")
	data, _ := evs[0]["data"].(store.Doc)
	require.Equal(t, f.hookID, data["_id"])
	require.Equal(t, false, data["active"])
	require.Equal(t, resource.PlatformActor, data["modifiedBy"])
	require.NotContains(t, data, "secret", "the event carries no secret")
}

// TestDeactivatedWebhookStopsItsRetries: a webhook switched off between
// attempts receives no further attempt and nothing is parked.
func TestDeactivatedWebhookStopsItsRetries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var starts []time.Time
	env := f.env(&starts)
	env.RegisterDelayedCallback(func() {
		_, err := f.st.Collection(webhook.Collection).Update(f.ctx, query.ID(f.hookID), store.Update{Set: store.Doc{"active": false}})
		require.NoError(t, err)
	}, 90*time.Second) // after the second attempt (at 1 minute)
	res := f.run(env, 0)
	require.Equal(t, webhook.StatusSkipped, res.Status)
	require.Len(t, f.hits(), 2)
	n, err := f.st.Collection(webhook.RetriesCollection).Count(f.ctx, nil)
	require.NoError(t, err)
	require.Zero(t, n)
}
