package workflows_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
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
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/worker"
	"platform/workflows/contract"
)

// queueFixture is a customer with one webhook whose receiver answers as
// the test says, on the real store, with the delivery activities as the
// dispatcher and the retrier use them. The retrier workflow runs in the
// time-skipping environment, so a delivery's 15 minutes take seconds.
type queueFixture struct {
	t        *testing.T
	st       store.Store
	ctx      context.Context
	customer string
	hookID   string
	app      *app.App
	acts     *delivery.Activities
	ensured  *ensureLog
	url      string // the receiver's base URL

	mu     sync.Mutex
	answer func(n int, path string) int // the status of the n-th request (from 1)
	hits   []string                     // paths of the requests received
	rounds []round                      // the retrier's rounds, by the test clock
}

// round is one RetryDueDeliveries call: when it started (test clock) and
// how many requests the receiver had seen by then.
type round struct {
	at   time.Time
	hits int
}

// ensureLog is the retrier starter of these tests: the test runs the
// retrier itself, in the time-skipping environment; this notes what the
// queue asked for.
type ensureLog struct {
	mu    sync.Mutex
	hooks []string
}

func (e *ensureLog) EnsureRetrier(_ context.Context, _, webhookID string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hooks = append(e.hooks, webhookID)
	return nil
}

func (e *ensureLog) calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string{}, e.hooks...)
}

func newQueueFixture(t *testing.T) *queueFixture {
	f := &queueFixture{t: t, st: testenv.NewStore(t, ""), customer: store.NewID(), hookID: store.NewID(), ensured: &ensureLog{}}
	f.ctx = tenant.WithCustomer(context.Background(), f.customer)
	f.app = platformOn(t, f.st)
	f.answer = func(int, string) int { return http.StatusInternalServerError }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits = append(f.hits, r.URL.Path)
		status := f.answer(len(f.hits), r.URL.Path)
		f.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	guard, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	f.acts = &delivery.Activities{Store: f.st, Log: testenv.Logger(t), Outbound: guard, WebhookTimeout: 5 * time.Second,
		Records: f.app.Service, Retriers: f.ensured}
	require.NoError(t, f.st.Collection(webhook.Collection).Insert(f.ctx, store.Doc{
		"_id": f.hookID, "name": "hook", "url": srv.URL + "/hook", "events": []any{"*"}, "active": true,
		"secret": "0123456789abcdef0123456789abcdef"}))
	return f
}

// answerWith sets how the receiver answers.
func (f *queueFixture) answerWith(a func(n int, path string) int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = a
}

func (f *queueFixture) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.hits...)
}

// event stores an event and returns its id.
func (f *queueFixture) event() string {
	id := store.NewID()
	require.NoError(f.t, f.st.Collection(events.Collection).Insert(f.ctx, store.Doc{
		"_id": id, "name": "consumers.created", "timestamp": time.Now().UTC().Truncate(time.Millisecond),
		"data": store.Doc{"_id": store.NewID(), "email": "ada@example.com"}, "dispatched": true}))
	return id
}

// firstAttempt makes a delivery's first attempt as the dispatcher does,
// and returns it as QueueRetries takes it.
func (f *queueFixture) firstAttempt(eventID string) delivery.Failed {
	ev, err := f.st.Collection(events.Collection).Get(f.ctx, eventID)
	require.NoError(f.t, err)
	hook, err := f.st.Collection(webhook.Collection).Get(f.ctx, f.hookID)
	require.NoError(f.t, err)
	out, err := f.acts.Try(f.ctx, delivery.Attempt{EventID: eventID, Hook: hook, Round: 0, N: 1, Event: delivery.Event{
		Name: ev["name"].(string), Timestamp: ev["timestamp"].(time.Time), Data: ev["data"].(store.Doc)}})
	require.NoError(f.t, err)
	require.Equal(f.t, webhook.StatusFailed, out.Status, "the first attempt fails")
	return delivery.Failed{EventID: eventID, Event: "consumers.created", WebhookID: f.hookID, First: &out}
}

// failedAt is a failed first attempt made at a given time (no request).
func (f *queueFixture) failedAt(eventID string, at time.Time) delivery.Failed {
	return delivery.Failed{EventID: eventID, Event: "consumers.created", WebhookID: f.hookID, First: &delivery.Outcome{
		Status: webhook.StatusFailed, StatusCode: 500, Error: "the receiver answered 500", At: at.UTC().Truncate(time.Millisecond)}}
}

func (f *queueFixture) queue(list ...delivery.Failed) {
	require.NoError(f.t, f.acts.QueueRetries(f.ctx, list))
}

// env is a time-skipping environment with the fixture's activities for
// its customer, noting every round.
func (f *queueFixture) env() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(testenv.Logger(f.t)))
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(8 * time.Minute) // real time: a dead receiver's 1,500 attempts are store writes (2.5 min on FerretDB)
	env.SetContextPropagators([]workflow.ContextPropagator{tenant.Propagator{}})
	p, err := converter.GetDefaultDataConverter().ToPayload(f.customer)
	require.NoError(f.t, err)
	env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{tenant.HeaderKey: p}})
	worker.Register(env, worker.Activities{Delivery: f.acts, System: &system.Activities{Store: f.st, Bugs: f.app.Bugs}})
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == contract.ActivityRetryDueDeliveries {
			f.mu.Lock()
			f.rounds = append(f.rounds, round{at: env.Now(), hits: len(f.hits)})
			f.mu.Unlock()
		}
	})
	return env
}

// retry runs the webhook's retrier until it ends.
func (f *queueFixture) retry(env *testsuite.TestWorkflowEnvironment) {
	env.ExecuteWorkflow(contract.WorkflowWebhookRetrier, contract.RetrierInput{WebhookID: f.hookID})
	require.True(f.t, env.IsWorkflowCompleted())
	require.NoError(f.t, env.GetWorkflowError())
}

// sendingRounds are the start times of the rounds that sent requests.
func (f *queueFixture) sendingRounds() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Time
	for i, r := range f.rounds {
		after := len(f.hits)
		if i+1 < len(f.rounds) {
			after = f.rounds[i+1].hits
		}
		if after > r.hits {
			out = append(out, r.at)
		}
	}
	return out
}

// perRound is how many requests each round sent.
func (f *queueFixture) perRound() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]int, len(f.rounds))
	for i, r := range f.rounds {
		after := len(f.hits)
		if i+1 < len(f.rounds) {
			after = f.rounds[i+1].hits
		}
		out[i] = after - r.hits
	}
	return out
}

func (f *queueFixture) record(eventID string) store.Doc {
	d, err := f.st.Collection(webhook.RetriesCollection).Get(f.ctx, webhook.RetryRecordID(webhook.DeliveryID(eventID, f.hookID)))
	require.NoError(f.t, err)
	return d
}

func (f *queueFixture) hook() store.Doc {
	d, err := f.st.Collection(webhook.Collection).Get(f.ctx, f.hookID)
	require.NoError(f.t, err)
	return d
}

func (f *queueFixture) setHook(set store.Doc) {
	_, err := f.st.Collection(webhook.Collection).Update(f.ctx, query.ID(f.hookID), store.Update{Set: set})
	require.NoError(f.t, err)
}

// attemptsOf are the record's attempts.
func attemptsOf(rec store.Doc) []store.Doc {
	var out []store.Doc
	for _, a := range rec["attempts"].([]any) {
		out = append(out, a.(store.Doc))
	}
	return out
}

// TestRetrierAttemptsFiveTimesAtDoublingWaitsThenParks: after a failed
// first attempt the retrier makes attempts 2 to 5 after waits of 1, 2, 4
// and 8 minutes, then parks the delivery with all five attempts, in the
// shape SettleDelivery writes, and ends.
func TestRetrierAttemptsFiveTimesAtDoublingWaitsThenParks(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	eventID := f.event()
	first := f.firstAttempt(eventID)
	f.queue(first)
	require.Equal(t, []string{f.hookID}, f.ensured.calls(), "the webhook's retrier is made sure to run")
	rec := f.record(eventID)
	require.Equal(t, webhook.StatusRetrying, rec["status"])
	require.EqualValues(t, 1, rec["attemptCount"])
	require.WithinDuration(t, first.First.At.Add(time.Minute), rec["nextAttemptAt"].(time.Time), time.Millisecond)

	f.retry(f.env())
	require.Len(t, f.requests(), 5, "the first attempt and four retries")
	sent := f.sendingRounds()
	require.Len(t, sent, 4)
	require.InDelta(t, time.Minute.Seconds(), sent[0].Sub(first.First.At).Seconds(), 2, "wait before attempt 2")
	for i, want := range []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute} {
		require.Equal(t, want, sent[i+1].Sub(sent[i]), "wait before attempt %d", i+3)
	}
	rec = f.record(eventID)
	require.Equal(t, webhook.StatusParked, rec["status"])
	require.EqualValues(t, 5, rec["attemptCount"])
	require.NotContains(t, rec, "nextAttemptAt")
	attempts := attemptsOf(rec)
	require.Len(t, attempts, 5)
	for i, a := range attempts {
		require.EqualValues(t, 0, a["round"])
		require.EqualValues(t, i+1, a["attempt"])
		require.EqualValues(t, 500, a["statusCode"])
		require.Equal(t, "the receiver answered 500", a["error"])
		require.Contains(t, a, "durationMs")
	}
	require.Equal(t, attempts[0]["at"], rec["firstAttemptAt"])
	require.Equal(t, attempts[4]["at"], rec["lastAttemptAt"])
	n, err := f.st.Collection(webhook.DeliveriesCollection).Count(f.ctx, query.Eq("delivery", webhook.DeliveryID(eventID, f.hookID)))
	require.NoError(t, err)
	require.EqualValues(t, 5, n, "every attempt is in webhookdeliveries")
}

// TestRetrierDeliversOnTheThirdAttempt: a receiver that recovers gets the
// delivery on the third attempt; the record ends delivered and the
// retrier ends, nothing being left.
func TestRetrierDeliversOnTheThirdAttempt(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	f.answerWith(func(n int, _ string) int {
		if n < 3 {
			return http.StatusBadGateway
		}
		return http.StatusNoContent
	})
	eventID := f.event()
	f.queue(f.firstAttempt(eventID))
	f.retry(f.env())
	require.Len(t, f.requests(), 3)
	rec := f.record(eventID)
	require.Equal(t, webhook.StatusDelivered, rec["status"])
	require.EqualValues(t, 3, rec["attemptCount"])
	last := attemptsOf(rec)[2]
	require.EqualValues(t, 204, last["statusCode"])
	require.NotContains(t, last, "error")
}

// TestRetrierGoneDeactivatesTheWebhook: a 410 during the retries ends that
// delivery deactivated, turns the webhook off, and ends the webhook's
// other queued deliveries skipped without sending them.
func TestRetrierGoneDeactivatesTheWebhook(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	f.answerWith(func(n int, _ string) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusGone
	})
	gone, later := f.event(), f.event()
	f.queue(f.firstAttempt(gone), f.failedAt(later, time.Now().Add(30*time.Second)))
	f.retry(f.env())
	require.Len(t, f.requests(), 2, "nothing is sent after the 410")
	require.Equal(t, webhook.StatusDeactivated, f.record(gone)["status"])
	rec := f.record(later)
	require.Equal(t, webhook.StatusSkipped, rec["status"])
	require.EqualValues(t, 1, rec["attemptCount"])
	hook := f.hook()
	require.Equal(t, false, hook["active"])
	require.Contains(t, hook["deactivatedReason"], "410")
}

// TestRetrierEndsWhenTheWebhookGoes: a webhook deleted or switched off
// between attempts ends its queued deliveries skipped; one the circuit
// breaker disabled parks them, to be retried by id after enable.
func TestRetrierEndsWhenTheWebhookGoes(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		change func(f *queueFixture)
		status string
	}{
		"deleted": {func(f *queueFixture) {
			_, err := f.st.Collection(webhook.Collection).Delete(f.ctx, query.ID(f.hookID))
			require.NoError(t, err)
		}, webhook.StatusSkipped},
		"deactivated": {func(f *queueFixture) { f.setHook(store.Doc{"active": false}) }, webhook.StatusSkipped},
		"disabled": {func(f *queueFixture) {
			f.setHook(store.Doc{"active": false, "disabledAt": time.Now().UTC(), "disabledReason": "test"})
		}, webhook.StatusParked},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newQueueFixture(t)
			eventID := f.event()
			f.queue(f.firstAttempt(eventID))
			env := f.env()
			env.RegisterDelayedCallback(func() { c.change(f) }, 2*time.Minute) // after attempt 2
			f.retry(env)
			require.Len(t, f.requests(), 2)
			rec := f.record(eventID)
			require.Equal(t, c.status, rec["status"])
			require.EqualValues(t, 2, rec["attemptCount"])
			require.NotContains(t, rec, "nextAttemptAt")
		})
	}
}

// TestRetrierUsesTheWebhookAsItIsNow: the webhook is read in every round,
// so a URL changed after the first attempt receives the next one.
func TestRetrierUsesTheWebhookAsItIsNow(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	f.answerWith(func(_ int, path string) int {
		if path == "/moved" {
			return http.StatusOK
		}
		return http.StatusServiceUnavailable
	})
	eventID := f.event()
	f.queue(f.firstAttempt(eventID))
	f.setHook(store.Doc{"url": f.url + "/moved"})
	f.retry(f.env())
	require.Equal(t, []string{"/hook", "/moved"}, f.requests())
	require.Equal(t, webhook.StatusDelivered, f.record(eventID)["status"])
}

// TestDeadReceiverCostsBoundedCallsPerRound: 300 deliveries queued for a
// receiver that fails every request. Each round sends at most
// delivery.DeadProbe requests and records the rest of its batch as
// attempts not sent, which count: every delivery parks after five
// attempts, on the normal schedule.
func TestDeadReceiverCostsBoundedCallsPerRound(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	f.answerWith(func(int, string) int { return http.StatusServiceUnavailable })
	var list []delivery.Failed
	for range 300 {
		list = append(list, delivery.Failed{EventID: f.event(), Event: "consumers.created", WebhookID: f.hookID})
	}
	f.queue(list...) // no first attempt: due at once
	f.retry(f.env())
	per := f.perRound()
	require.NotEmpty(t, per)
	for i, n := range per {
		require.LessOrEqual(t, n, delivery.DeadProbe, "round %d sent %d requests", i, n)
	}
	require.LessOrEqual(t, len(f.requests()), len(per)*delivery.DeadProbe)
	parked, err := f.st.Collection(webhook.RetriesCollection).Find(f.ctx, store.FindOptions{Filter: query.Eq("status", webhook.StatusParked)})
	require.NoError(t, err)
	require.Len(t, parked, 300)
	notSent := 0
	for _, rec := range parked {
		require.EqualValues(t, 5, rec["attemptCount"])
		for _, a := range attemptsOf(rec) {
			if e, _ := a["error"].(string); e == "not sent: the receiver failed the last 10 attempts" {
				notSent++
				require.NotContains(t, a, "statusCode")
			}
		}
	}
	require.Equal(t, 5*300-len(f.requests()), notSent, "every attempt not sent is recorded as such")
}

// TestQueueRetriesIsIdempotent: queueing a delivery again writes nothing,
// even once its retries went on, and still makes sure the retrier runs.
func TestQueueRetriesIsIdempotent(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	eventID := f.event()
	first := f.firstAttempt(eventID)
	f.queue(first)
	rec := f.record(eventID)
	f.queue(first)
	require.Equal(t, rec, f.record(eventID), "queued again: unchanged")
	n, err := f.st.Collection(webhook.RetriesCollection).Count(f.ctx, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	// Once the retrier parked it, the dispatcher's repeat changes nothing.
	f.retry(f.env())
	parked := f.record(eventID)
	require.Equal(t, webhook.StatusParked, parked["status"])
	other := f.event()
	f.queue(first, delivery.Failed{EventID: other, Event: "consumers.created", WebhookID: f.hookID})
	require.Equal(t, parked, f.record(eventID))
	require.Equal(t, webhook.StatusRetrying, f.record(other)["status"], "the new one in the same call is queued")
	require.Equal(t, []string{f.hookID, f.hookID, f.hookID}, f.ensured.calls())

	// A first attempt that did not fail leaves nothing to retry.
	ok := f.event()
	f.queue(delivery.Failed{EventID: ok, Event: "consumers.created", WebhookID: f.hookID, First: &delivery.Outcome{Status: webhook.StatusDelivered, At: time.Now()}})
	_, err = f.st.Collection(webhook.RetriesCollection).Get(f.ctx, webhook.RetryRecordID(webhook.DeliveryID(ok, f.hookID)))
	require.ErrorIs(t, err, store.ErrNotFound)
}

// TestRetrierLooksAgainAfterASignal: a process that signalled the retrier
// queues more without signalling again while it trusts it (a minute of
// RetrierSignalFresh); the retrier, which had nothing left, looks once
// more RetrierCheckAfter after the signal, so the delivery queued after
// its last round is not left behind.
func TestRetrierLooksAgainAfterASignal(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	f.answerWith(func(n int, _ string) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	early := f.event()
	f.queue(f.firstAttempt(early)) // due in a minute
	late := f.event()
	env := f.env()
	start := env.Now()
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(contract.SignalRetrierQueued, nil) }, 50*time.Second)
	env.RegisterDelayedCallback(func() {
		f.queue(delivery.Failed{EventID: late, Event: "consumers.created", WebhookID: f.hookID}) // no signal: the starter trusts the retrier
	}, 70*time.Second)
	f.retry(env)
	require.Equal(t, webhook.StatusDelivered, f.record(early)["status"])
	require.Equal(t, webhook.StatusDelivered, f.record(late)["status"], "picked up by the owed check")
	sent := f.sendingRounds()
	require.Len(t, sent, 2)
	require.InDelta(t, (50*time.Second + contract.RetrierCheckAfter).Seconds(), sent[1].Sub(start).Seconds(), 2)
}
