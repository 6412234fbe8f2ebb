package automation_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	smtpmock "github.com/mocktools/go-smtp-mock/v2"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/test/testenv"
)

// TestHTTPStepRefusesInternalTargets: without PLATFORM_OUTBOUND_ALLOW an
// http step cannot reach loopback, private or link-local addresses, and
// the refusal is not retried; saving such a step says so (meta.warnings),
// instead of a silent 201.
func TestHTTPStepRefusesInternalTargets(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("automation.*")
	rcv := newReceiver(t)
	for _, target := range []string{rcv.url("/steal"), "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/"} {
		r := p.Do("POST", "/automation/pipelines", tok, newPipeline("probe", map[string]any{
			"id": "call", "type": "http", "url": target, "timeoutMs": 2000, "retry": map[string]any{"maxAttempts": 3},
		}))
		require.Equal(t, 201, r.Status, "%s", r.Body)
		requireRefusalWarning(t, r, "steps[0].url")
		run := waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, nil)))
		require.Equal(t, "failed", run["status"], target)
		require.Equal(t, "call", run["failedStep"])
		require.Contains(t, run["error"].(map[string]any)["message"], "PLATFORM_OUTBOUND_ALLOW", target)
	}
	require.Empty(t, rcv.requests("/steal"))
}

// TestHostileTransformDoesNotStopOtherRuns: a run whose transform never
// ends fails with a clean time-out, and the worker completes other runs
// meanwhile: while an endless transform holds a worker slot and a sandbox
// child, another customer's runs complete. (The customer's own runs would
// wait for its one sandbox child by design: sandbox.PoolOptions.PerTenant.)
func TestHostileTransformDoesNotStopOtherRuns(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("automation.*")
	hostile := []map[string]any{
		{"id": "spin", "type": "transform", "language": "javascript", "expression": "(() => { while (true) {} })()", "timeoutMs": 1500},
		{"id": "regex", "type": "transform", "language": "javascript", "expression": "/^(?=a)(a+)+$/.test('a'.repeat(40) + 'b')", "timeoutMs": 1500},
		{"id": "alloc", "type": "transform", "language": "javascript", "expression": "'x'.repeat(1 << 29).length", "timeoutMs": 1500},
		{"id": "recurse", "type": "transform", "expression": "($f := function($n) { $f($n + 1) + 1 }; $f(0))", "timeoutMs": 3000},
	}
	var ids []string
	for _, h := range hostile {
		ids = append(ids, startPipeline(t, p, tok, newPipeline("hostile-"+h["id"].(string), h)))
	}
	for i, id := range ids {
		run := waitRun(t, p, tok, id)
		require.Equal(t, "failed", run["status"], hostile[i]["id"])
		kind := run["error"].(map[string]any)["kind"]
		require.Contains(t, []any{"timeout", "memory", "stack_overflow", "crashed"}, kind, "%v: %v", hostile[i]["id"], run["error"])
		step := run["steps"].([]any)[0].(map[string]any)
		require.Less(t, step["duration"].(float64), 5000.0, "ended within its limit plus a margin: %v", step)
	}

	// An endless transform (30 s, the longest a transform may ask for)
	// after a quick first step: once that step is in the run record, the
	// interpreter has moved on to the endless one.
	endless := startPipeline(t, p, tok, newPipeline("endless", transformStep("mark", "1"), map[string]any{
		"id": "forever", "type": "transform", "language": "javascript", "expression": "(() => { while (true) {} })()", "timeoutMs": 30_000,
	}))
	waitSteps(t, p, tok, endless, 1)
	other, user := p.OtherCustomer("bystander")
	otok := p.TokenFor(other.ID, user.ID, "automation.*")
	r := p.Do("POST", "/automation/pipelines", otok, newPipeline("benign", transformStep("t", `"fine"`)))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	benign := r.Payload()["_id"].(string)
	start := time.Now()
	var runs []string
	for range 4 {
		runs = append(runs, runOf(t, p.Do("POST", "/automation/pipelines/"+benign+"/actions/run", otok, nil)))
	}
	for _, id := range runs {
		require.Equal(t, "success", waitRun(t, p, otok, id)["status"])
	}
	// A worker that ran one job at a time would still be held by the
	// endless step here (the benign runs would have waited for its 30 s).
	require.Equal(t, "running", runRecord(t, p, tok, endless)["status"], "4 benign runs completed, in %s, only once the endless transform had stopped", time.Since(start))
	require.Equal(t, 200, p.Do("POST", "/automation/pipelineruns/"+endless+"/actions/cancel", tok, nil).Status)
	require.Equal(t, true, waitRun(t, p, tok, endless)["cancelled"])
}

// startPipeline saves a pipeline and starts a manual run of it.
func startPipeline(t *testing.T, p *testenv.Platform, tok string, body map[string]any) string {
	t.Helper()
	r := p.Do("POST", "/automation/pipelines", tok, body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	return runOf(t, p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, nil))
}

// waitSteps polls a running run until its record holds n steps.
func waitSteps(t *testing.T, p *testenv.Platform, tok, id string, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		rec := runRecord(t, p, tok, id)
		require.Equal(t, "running", rec["status"], "run %s ended before its step %d: %v", id, n+1, rec["error"])
		if len(rec["steps"].([]any)) >= n {
			return
		}
	}
	t.Fatalf("run %s did not record %d steps within 30 s", id, n)
}

// runRecord reads a run record through the API.
func runRecord(t *testing.T, p *testenv.Platform, tok, id string) map[string]any {
	t.Helper()
	r := p.Do("GET", "/automation/pipelineruns/"+id, tok, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	return r.Payload()
}

// TestPipelineDoesNotTriggerItself: a pipeline started by tasks.created
// that creates a task is not started again by its own task.
func TestPipelineDoesNotTriggerItself(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("automation.*", "crm.*")
	body := newPipeline("echo", taskStep("again", "echo of {{event.data.title}}"))
	body["trigger"] = map[string]any{"event": "tasks.created"}
	r := p.Do("POST", "/automation/pipelines", tok, body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	pid := r.Payload()["_id"].(string)
	require.Equal(t, 201, p.Do("POST", "/crm/tasks", tok, map[string]any{"title": "seed"}).Status)
	require.Eventually(t, func() bool {
		list := p.Do("GET", "/automation/pipelineruns?pipeline="+pid, tok, nil).List()
		return len(list) == 1 && list[0]["status"] == "success"
	}, 30*time.Second, 200*time.Millisecond)
	time.Sleep(3 * time.Second) // time for a (wrong) second run to start
	require.Len(t, p.Do("GET", "/automation/pipelineruns?pipeline="+pid, tok, nil).List(), 1)
	require.Len(t, p.Do("GET", "/crm/tasks", tok, nil).List(), 2)
}

// TestPipelineCycleAcrossPipelinesIsRefused: A creates the task that
// starts B and B the task that starts A. The events of db steps' writes
// carry the chain of runs that caused them, so A's second run is refused
// and recorded as a failed run naming the loop, instead of looping on.
func TestPipelineCycleAcrossPipelinesIsRefused(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("automation.*", "crm.*")
	mk := func(name, on, writes string) string {
		body := newPipeline(name, taskStep("write", writes))
		body["trigger"] = map[string]any{"event": "tasks.created", "filter": map[string]any{"title": on}}
		r := p.Do("POST", "/automation/pipelines", tok, body)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		return r.Payload()["_id"].(string)
	}
	a, b := mk("A", "ping", "pong"), mk("B", "pong", "ping")
	require.Equal(t, 201, p.Do("POST", "/crm/tasks", tok, map[string]any{"title": "ping"}).Status)

	var refused map[string]any
	require.Eventually(t, func() bool {
		for _, r := range p.Do("GET", "/automation/pipelineruns?pipeline="+a, tok, nil).List() {
			if e, _ := r["error"].(map[string]any); e["kind"] == "cycle" {
				refused = r
			}
		}
		return refused != nil
	}, 60*time.Second, 200*time.Millisecond)
	require.Equal(t, "failed", refused["status"])
	require.Contains(t, refused["error"].(map[string]any)["message"], a+" → "+b)
	require.Empty(t, refused["steps"])
	time.Sleep(3 * time.Second) // time for a (wrong) further run to start
	runsOf := func(id string) []map[string]any {
		return p.Do("GET", "/automation/pipelineruns?pipeline="+id, tok, nil).List()
	}
	require.Len(t, runsOf(a), 2, "A ran once and was refused once")
	bRuns := runsOf(b)
	require.Len(t, bRuns, 1)
	require.Equal(t, "success", bRuns[0]["status"])
	cause := bRuns[0]["event"].(map[string]any)["cause"].([]any)
	require.Len(t, cause, 1)
	require.Equal(t, a, cause[0].(map[string]any)["pipeline"])
	require.Len(t, p.Do("GET", "/crm/tasks", tok, nil).List(), 3, "ping, pong, ping")
}

// TestSecretsNeverLeaveTheActivity: a credential's value reaches the http
// step's receiver, but the run record, the events and the workflow
// history show it only as [redacted].
func TestSecretsNeverLeaveTheActivity(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	tok := p.Token("automation.*", "config.*")
	const token = "tok-9f8e7d6c5b4a39281706"
	r := p.Do("POST", "/config/credentials", tok, map[string]any{"name": "crmhook", "type": "api-key", "credentials": map[string]any{"token": token}})
	require.Equal(t, 201, r.Status, "%s", r.Body)

	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"sawAuth": req.Header.Get("Authorization")})
	}))
	t.Cleanup(echo.Close)
	body := newPipeline("uses a secret", map[string]any{
		"id": "call", "type": "http", "method": "POST", "url": echo.URL + "/x",
		"headers": map[string]any{"Authorization": "Bearer {{secrets.crmhook.token}}"},
		"body":    map[string]any{"note": "token is {{secrets.crmhook.token}}"},
	}, transformStep("after", "steps.call.output.body"))
	r = p.Do("POST", "/automation/pipelines", tok, body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	runID := runOf(t, p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, nil))
	run := waitRun(t, p, tok, runID)
	require.Equal(t, "success", run["status"], "%v", run)
	call := run["steps"].([]any)[0].(map[string]any)
	require.Equal(t, "Bearer [redacted]", call["input"].(map[string]any)["headers"].(map[string]any)["Authorization"])
	require.Equal(t, "Bearer [redacted]", call["output"].(map[string]any)["body"].(map[string]any)["sawAuth"], "the receiver got the secret; the record does not show it")

	raw, err := p.Store.Collection("pipelineruns").Get(tenant.WithCustomer(context.Background(), p.Customer.ID), runID)
	require.NoError(t, err)
	blob, _ := json.Marshal(raw)
	require.NotContains(t, string(blob), token)

	hist := p.Temporal.GetWorkflowHistory(context.Background(), runID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for hist.HasNext() {
		ev, err := hist.Next()
		require.NoError(t, err)
		b, _ := protojson.Marshal(ev)
		require.NotContains(t, string(b), token, "history event %d", ev.EventId)
		require.NotContains(t, string(b), base64.StdEncoding.EncodeToString([]byte(`"Bearer `+token+`"`)))
		n++
	}
	require.Greater(t, n, 5)
	evs, err := p.Store.Collection("events").Find(tenant.WithCustomer(context.Background(), p.Customer.ID), store.FindOptions{})
	require.NoError(t, err)
	blob, _ = json.Marshal(evs)
	require.NotContains(t, string(blob), token)
}

// TestNotificationStepSendsMail: a notification step's mail reaches a real
// SMTP server (go-smtp-mock) configured by PLATFORM_SMTP_*, rendered with
// the event's data; an unconfigured channel fails the step for good.
func TestNotificationStepSendsMail(t *testing.T) {
	t.Parallel()
	srv := smtpmock.New(smtpmock.ConfigurationAttr{HostAddress: "127.0.0.1", MultipleRcptto: true, MultipleMessageReceiving: true})
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Stop() })
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.SMTPAddr, c.SMTPTLS, c.SMTPHelo = fmt.Sprintf("127.0.0.1:%d", srv.PortNumber()), "none", "localhost"
		c.SMTPFrom = "Acme <noreply@acme.example>"
	}})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/pipelines", tok, newPipeline("welcome mail",
		map[string]any{"id": "mail", "type": "notification", "channel": "mail", "to": "{{input.email}}",
			"subject": "Welcome, {{input.name}}", "template": "Hello {{input.name}},\nthanks for joining {{customer.slug}}."},
		map[string]any{"id": "sms", "type": "notification", "channel": "sms", "to": "+4915112345678", "template": "hi", "onError": "continue"},
	))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	run := waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok,
		map[string]any{"input": map[string]any{"email": "ada@example.com", "name": "Ada"}})))
	require.Equal(t, "success", run["status"], "%v", run)
	msgs, err := srv.WaitForMessages(1, 10*time.Second)
	require.NoError(t, err)
	data := msgs[0].MsgRequest()
	require.Contains(t, data, "Subject: Welcome, Ada")
	require.Contains(t, data, "thanks for joining "+p.Customer.Slug)
	require.Contains(t, msgs[0].RcpttoRequestResponse()[0][0], "ada@example.com")
	steps := run["steps"].([]any)
	require.Equal(t, map[string]any{"sent": true, "channel": "mail", "recipients": 1.0}, steps[0].(map[string]any)["output"])
	sms := steps[1].(map[string]any)
	require.Equal(t, "failed", sms["status"], "SMS is not configured here")
	require.Contains(t, sms["error"].(map[string]any)["message"], "PLATFORM_SMS_URL")
	require.EqualValues(t, 1, len(srv.Messages()), "not retried")
}
