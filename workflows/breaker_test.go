package workflows_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/activities/delivery"
	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
)

// disabledEvents are the webhooks.disabled events recorded.
func (f *queueFixture) disabledEvents() []store.Doc {
	evs, err := f.st.Collection(events.Collection).Find(f.ctx, store.FindOptions{Filter: query.Eq("name", "webhooks.disabled")})
	require.NoError(f.t, err)
	return evs
}

// TestBreakerDisablesAfterDeliveriesParkedInARow: once the threshold of
// deliveries parked in a row is reached, the webhook is turned off through
// the record service (disabledAt, disabledReason, announced as
// webhooks.disabled without its secret) and its other queued deliveries
// are parked at once, before their fifth attempt.
func TestBreakerDisablesAfterDeliveriesParkedInARow(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	f.acts.DisableAfterParked = 3
	now := time.Now()
	a, b, c, pending := f.event(), f.event(), f.event(), f.event()
	f.queue(f.failedAt(a, now), f.failedAt(b, now), f.failedAt(c, now), f.failedAt(pending, now.Add(5*time.Minute)))
	f.retry(f.env())
	for _, id := range []string{a, b, c} {
		rec := f.record(id)
		require.Equal(t, webhook.StatusParked, rec["status"])
		require.EqualValues(t, 5, rec["attemptCount"])
	}
	rec := f.record(pending)
	require.Equal(t, webhook.StatusParked, rec["status"], "parked with the webhook")
	require.Less(t, rec["attemptCount"].(int64), int64(5))
	require.NotContains(t, rec, "nextAttemptAt")

	hook := f.hook()
	require.Equal(t, false, hook["active"])
	require.NotNil(t, hook["disabledAt"])
	require.Contains(t, hook["disabledReason"], "3 deliveries in a row were parked")
	require.Equal(t, resource.PlatformActor, hook["modifiedBy"])
	require.EqualValues(t, 3, hook["parkedInRow"])
	evs := f.disabledEvents()
	require.Len(t, evs, 1)
	data := evs[0]["data"].(store.Doc)
	require.Equal(t, f.hookID, data["_id"])
	require.Equal(t, false, data["active"])
	require.NotContains(t, data, "secret")
}

// TestBreakerDisablesAfterFailingForLong: every attempt failing for
// DisableAfter since the streak's first failure disables the webhook,
// however few deliveries parked.
func TestBreakerDisablesAfterFailingForLong(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	f.acts.DisableAfter = 20 * time.Minute
	now := time.Now()
	a, b, c := f.event(), f.event(), f.event()
	f.queue(f.failedAt(a, now), f.failedAt(b, now.Add(10*time.Minute)), f.failedAt(c, now.Add(20*time.Minute)))
	f.retry(f.env())
	hook := f.hook()
	require.Equal(t, false, hook["active"])
	require.Contains(t, hook["disabledReason"], "every delivery attempt failed for 20 min")
	require.Equal(t, now.UTC().Truncate(time.Millisecond), hook["failingSince"], "the streak began with the first failed attempt")
	require.Equal(t, webhook.StatusParked, f.record(a)["status"])
	for _, id := range []string{b, c} {
		rec := f.record(id)
		require.Equal(t, webhook.StatusParked, rec["status"])
		require.Less(t, rec["attemptCount"].(int64), int64(5), "parked by the breaker")
	}
	require.Len(t, f.disabledEvents(), 1)
}

// TestBreakerSparesAWebhookThatSucceeds: a success the retrier saw resets
// the streak; one it did not see (a first attempt delivered by the
// dispatcher) is found before disabling, and the streak starts afresh.
func TestBreakerSparesAWebhookThatSucceeds(t *testing.T) {
	t.Parallel()
	f := newQueueFixture(t)
	f.acts.DisableAfterParked = 2
	f.setHook(store.Doc{"parkedInRow": int64(1), "failingSince": time.Now().Add(-time.Hour).UTC()})
	f.answerWith(func(int, string) int { return http.StatusOK })
	ok := f.event()
	f.queue(f.failedAt(ok, time.Now()))
	f.retry(f.env())
	require.Equal(t, webhook.StatusDelivered, f.record(ok)["status"])
	hook := f.hook()
	require.NotContains(t, hook, "parkedInRow", "a success resets the streak")
	require.NotContains(t, hook, "failingSince")

	// Two deliveries park; a first attempt delivered meanwhile (not seen
	// by the retrier) keeps the webhook on.
	f.answerWith(func(int, string) int { return http.StatusInternalServerError })
	now := time.Now()
	x, y, z := f.event(), f.event(), f.event()
	f.queue(f.failedAt(x, now), f.failedAt(y, now))
	env := f.env()
	env.RegisterDelayedCallback(func() {
		f.answerWith(func(int, string) int { return http.StatusOK })
		hook, err := f.st.Collection(webhook.Collection).Get(f.ctx, f.hookID)
		require.NoError(t, err)
		ev, err := f.st.Collection(events.Collection).Get(f.ctx, z)
		require.NoError(t, err)
		out, err := f.acts.Try(f.ctx, delivery.Attempt{EventID: z, Hook: hook, N: 1, Event: delivery.Event{Name: "consumers.created", Timestamp: ev["timestamp"].(time.Time), Data: ev["data"].(store.Doc)}})
		require.NoError(t, err)
		require.Equal(t, webhook.StatusDelivered, out.Status)
		f.answerWith(func(int, string) int { return http.StatusInternalServerError })
	}, 5*time.Minute)
	f.retry(env)
	require.Equal(t, webhook.StatusParked, f.record(x)["status"])
	hook = f.hook()
	require.Equal(t, true, hook["active"], "not disabled: a delivery succeeded during the streak")
	require.NotContains(t, hook, "parkedInRow", "the streak starts afresh")
	require.Empty(t, f.disabledEvents())
}
