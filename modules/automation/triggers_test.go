package automation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/modules/automation/runs"
	"platform/test/apitest"
	"platform/test/testenv"
)

func TestTriggerValidation(t *testing.T) {
	f := newFixture(t)
	refused := func(name string, body map[string]any, field string) scenario {
		body["name"] = name
		return scenario{Name: name, Method: "POST", Path: "/automation/triggers", Body: body, Status: 422, Field: field}
	}
	apitest.Run(t, f, []scenario{
		refused("unknown type", map[string]any{"type": "telepathy"}, "type"),
		refused("event without event", map[string]any{"type": "event"}, "event"),
		refused("unknown event", map[string]any{"type": "event", "event": "tasks.exploded"}, "event"),
		refused("bad filter", map[string]any{"type": "event", "event": "tasks.assigned", "filter": map[string]any{"a": map[string]any{"$nope": 1}}}, "filter"),
		refused("cron without cron", map[string]any{"type": "cron"}, "cron"),
		refused("bad cron", map[string]any{"type": "cron", "cron": "61 * * * *"}, "cron"),
		refused("six fields", map[string]any{"type": "cron", "cron": "0 0 9 * * 1"}, "cron"),
		refused("zone in the expression", map[string]any{"type": "cron", "cron": "CRON_TZ=UTC 0 9 * * *"}, "cron"),
		refused("bad zone", map[string]any{"type": "cron", "cron": "@hourly", "timezone": "Mars/Olympus"}, "timezone"),
		refused("cron setting on a webhook", map[string]any{"type": "webhook", "cron": "@hourly"}, "cron"),
		refused("event setting on cron", map[string]any{"type": "cron", "cron": "@hourly", "event": "tasks.assigned"}, "event"),
	})
}

func TestCronTriggerIsATemporalSchedule(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/triggers", tok, map[string]any{"name": "weekday mornings", "type": "cron", "cron": "0 9 * * 1-5", "timezone": "Europe/Berlin"})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	id := r.Payload()["_id"].(string)
	ctx := context.Background()
	h := p.Temporal.ScheduleClient().GetHandle(ctx, runs.TriggerScheduleID(id))
	desc, err := h.Describe(ctx)
	require.NoError(t, err)
	require.Equal(t, "Europe/Berlin", desc.Schedule.Spec.TimeZoneName)
	require.NotEmpty(t, desc.Info.NextActionTimes)
	next := desc.Info.NextActionTimes[0].In(mustZone(t, "Europe/Berlin"))
	require.Equal(t, 9, next.Hour(), "the next tick is at 9:00 Berlin time")

	r = p.Do("PATCH", "/automation/triggers/"+id, tok, map[string]any{"cron": "30 18 * * *"})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	desc, err = h.Describe(ctx)
	require.NoError(t, err)
	require.Equal(t, 18, desc.Info.NextActionTimes[0].In(mustZone(t, "Europe/Berlin")).Hour())

	r = p.Do("PATCH", "/automation/triggers/"+id, tok, map[string]any{"active": false})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	_, err = h.Describe(ctx)
	require.Error(t, err, "an inactive cron trigger has no schedule")
	require.Equal(t, 200, p.Do("PATCH", "/automation/triggers/"+id, tok, map[string]any{"active": true}).Status)
	require.Equal(t, 200, p.Do("DELETE", "/automation/triggers/"+id, tok, nil).Status)
	_, err = h.Describe(ctx)
	require.Error(t, err, "deleting the trigger removes its schedule")
}

// TestCronMinimumInterval: cron triggers and pipelines' cron triggers
// that fire more often than PLATFORM_CRON_MIN_INTERVAL (default 1m) are
// a 422 naming the cron field.
func TestCronMinimumInterval(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/triggers", tok, map[string]any{"name": "too often", "type": "cron", "cron": "@every 1s"})
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Contains(t, string(r.Body), `"field":"cron"`)
	require.Contains(t, string(r.Body), "at most once every 1m0s")
	body := newPipeline("seconds", transformStep("t", "1"))
	body["trigger"] = map[string]any{"cron": "* * * * * *"}
	r = p.Do("POST", "/automation/pipelines", tok, body)
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Contains(t, string(r.Body), `"field":"trigger.cron"`)
	body["trigger"] = map[string]any{"cron": "@every 1m"}
	require.Equal(t, 201, p.Do("POST", "/automation/pipelines", tok, body).Status)
}

func TestCronTriggerFiresRuns(t *testing.T) {
	t.Parallel()
	// Every second, so the test sees runs soon.
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) { c.CronMinInterval = time.Second }})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/triggers", tok, map[string]any{"name": "often", "type": "cron", "cron": "@every 1s"})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	trig := r.Payload()["_id"].(string)
	t.Cleanup(func() { p.Do("DELETE", "/automation/triggers/"+trig, tok, nil) })
	body := newPipeline("ticker", transformStep("t", `{"tick": event.name}`))
	body["trigger"] = map[string]any{"id": trig}
	r = p.Do("POST", "/automation/pipelines", tok, body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	pid := r.Payload()["_id"].(string)
	require.Eventually(t, func() bool {
		list := p.Do("GET", "/automation/pipelineruns?pipeline="+pid+"&status=success", tok, nil).List()
		return len(list) > 0 && list[0]["triggeredBy"] == "cron" && list[0]["trigger"] == trig
	}, 30*time.Second, 250*time.Millisecond)

	// A pipeline's own inline cron trigger is a schedule of its own.
	body = newPipeline("own ticker", transformStep("t", `event.name`))
	body["trigger"] = map[string]any{"cron": "@every 1s", "timezone": "Asia/Tokyo"}
	r = p.Do("POST", "/automation/pipelines", tok, body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	own := r.Payload()["_id"].(string)
	require.Eventually(t, func() bool {
		list := p.Do("GET", "/automation/pipelineruns?pipeline="+own+"&status=success", tok, nil).List()
		return len(list) > 0 && list[0]["triggeredBy"] == "cron" && list[0]["output"] == "cron"
	}, 30*time.Second, 250*time.Millisecond)
	h := p.Temporal.ScheduleClient().GetHandle(context.Background(), runs.PipelineScheduleID(own))
	_, err := h.Describe(context.Background())
	require.NoError(t, err)
	require.Equal(t, 200, p.Do("PATCH", "/automation/pipelines/"+own, tok, map[string]any{"trigger": nil}).Status)
	_, err = h.Describe(context.Background())
	require.Error(t, err, "dropping the cron trigger removes the schedule")
}

func TestWebhookTrigger(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) { c.HookRateLimit = 3 }})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/triggers", tok, map[string]any{"name": "shop orders", "type": "webhook"})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	trig := r.Payload()["_id"].(string)
	hook, _ := r.Payload()["webhookUrl"].(string)
	require.True(t, strings.HasPrefix(hook, p.URL+"/automation/hooks/"+trig+"/"), hook)
	require.NotContains(t, string(p.Do("GET", "/automation/triggers/"+trig, tok, nil).Body), "/hooks/", "the URL is shown once")
	require.NotContains(t, string(r.Body), "tokenHash")

	mk := func(name string) string {
		body := newPipeline(name, transformStep("t", `{"order": event.data.order, "by": event.name}`))
		body["trigger"] = map[string]any{"id": trig}
		r := p.Do("POST", "/automation/pipelines", tok, body)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		return r.Payload()["_id"].(string)
	}
	one, two := mk("one"), mk("two")
	path := strings.TrimPrefix(hook, p.URL)

	wrong := p.Do("POST", path[:len(path)-3]+"abc", "", map[string]any{"order": 1})
	require.Equal(t, 404, wrong.Status, "a wrong token is a 404")
	require.NotEmpty(t, wrong.Header.Get("X-RateLimit-Limit"), "an unknown URL reports the client address's limit")
	require.Equal(t, wrong.Header.Get("X-RateLimit-Limit"), wrong.Meta()["rateLimit"].(map[string]any)["limit"])
	require.Equal(t, 404, p.Do("POST", "/automation/hooks/"+strings.Repeat("0", 24)+"/x", "", nil).Status)

	ok := p.Do("POST", path, "", map[string]any{"order": 42})
	require.Equal(t, 202, ok.Status, "%s", ok.Body)
	require.Equal(t, "3", ok.Header.Get("X-RateLimit-Limit"), "the URL reports its own limit")
	require.Equal(t, "2", ok.Header.Get("X-RateLimit-Remaining"))
	require.Equal(t, map[string]any{"limit": "3", "remaining": "2"}, pick(ok.Meta()["rateLimit"], "limit", "remaining"))
	for _, pid := range []string{one, two} {
		var run map[string]any
		require.Eventually(t, func() bool {
			list := p.Do("GET", "/automation/pipelineruns?pipeline="+pid, tok, nil).List()
			if len(list) == 1 && list[0]["status"] == "success" {
				run = list[0]
				return true
			}
			return false
		}, 30*time.Second, 200*time.Millisecond, "one trigger starts every pipeline using it")
		require.Equal(t, "webhook", run["triggeredBy"])
		require.Equal(t, map[string]any{"order": 42.0, "by": "webhook"}, run["output"])
	}

	// The per-URL rate limit (3 a minute here): the third call after the
	// first is refused, or the fourth when the minute turned since the
	// first (waiting for the runs above may take that long on a busy
	// machine).
	var limited *testenv.Resp
	for calls := 0; calls < 4 && (limited == nil || limited.Status == 202); calls++ {
		limited = p.Do("POST", path, "", map[string]any{})
	}
	require.Equal(t, 429, limited.Status, "%s", limited.Body)
	require.NotEmpty(t, limited.Header.Get("Retry-After"))
	require.Equal(t, map[string]any{"limit": "3", "remaining": "0"}, pick(limited.Meta()["rateLimit"], "limit", "remaining"))
	require.Equal(t, "0", limited.Header.Get("X-RateLimit-Remaining"))

	// Rotating the token retires the old URL.
	rot := p.Do("POST", "/automation/triggers/"+trig+"/actions/rotateToken", tok, nil)
	require.Equal(t, 200, rot.Status, "%s", rot.Body)
	fresh := rot.Payload()["webhookUrl"].(string)
	require.NotEqual(t, hook, fresh)
	require.Equal(t, 404, p.Do("POST", path, "", map[string]any{}).Status)

	// Another customer's token never reaches this customer's trigger.
	require.Equal(t, 404, p.Do("POST", "/automation/hooks/"+trig+"/"+strings.Repeat("A", 43), "", nil).Status)
}

func mustZone(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

// TestTriggerTurnedIntoAWebhookShowsItsURL: a trigger that becomes a
// webhook trigger by PUT or PATCH gets a token whose URL that answer
// shows, once, as create and rotateToken do; the URL then works.
func TestTriggerTurnedIntoAWebhookShowsItsURL(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*")
	for _, method := range []string{"PATCH", "PUT"} {
		r := p.Do("POST", "/automation/triggers", tok, map[string]any{"name": "by hand " + method, "type": "manual"})
		require.Equal(t, 201, r.Status, "%s", r.Body)
		require.NotContains(t, r.Payload(), "webhookUrl", "a manual trigger has no URL")
		id := r.Payload()["_id"].(string)

		r = p.Do(method, "/automation/triggers/"+id, tok, map[string]any{"name": "by hand " + method, "type": "webhook"})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		url, _ := r.Payload()["webhookUrl"].(string)
		require.True(t, strings.HasPrefix(url, p.URL+"/automation/hooks/"+id+"/"), "%s shows the new URL: %v", method, r.Payload())
		require.NotContains(t, p.Do("GET", "/automation/triggers/"+id, tok, nil).Payload(), "webhookUrl", "shown once only")
		hook := p.Do("POST", strings.TrimPrefix(url, p.URL), "", map[string]any{"ping": true})
		require.Equal(t, 202, hook.Status, "the URL shown works: %s", hook.Body)
	}
}

// pick copies keys of an object of an answer (a meta entry).
func pick(v any, keys ...string) map[string]any {
	m, _ := v.(map[string]any)
	out := map[string]any{}
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}
