package automation_test

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/apitest"
	"platform/test/testenv"
)

func TestMain(m *testing.M) { testenv.SandboxMain(m) }

// taskStep is a db step creating a CRM task.
func taskStep(id, title string) map[string]any {
	return map[string]any{"id": id, "type": "db", "collection": "tasks", "op": "create", "data": map[string]any{"title": title}}
}

func transformStep(id, expr string) map[string]any {
	return map[string]any{"id": id, "type": "transform", "expression": expr}
}

func newPipeline(name string, steps ...map[string]any) map[string]any {
	list := make([]any, len(steps))
	for i, s := range steps {
		list[i] = s
	}
	return map[string]any{"name": name, "steps": list}
}

// waitRun polls a run until it has ended.
func waitRun(t *testing.T, p *testenv.Platform, tok, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r := p.Do("GET", "/automation/pipelineruns/"+id, tok, nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		if rec := r.Payload(); rec["status"] != "running" {
			return rec
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("run %s still running after 60 s", id)
	return nil
}

func runOf(t *testing.T, r *testenv.Resp) string {
	t.Helper()
	require.Equal(t, 200, r.Status, "%s", r.Body)
	run, _ := r.Payload()["run"].(map[string]any)
	require.NotNil(t, run, "%s", r.Body)
	return run["_id"].(string)
}

func TestPipelineValidationNamesTheStep(t *testing.T) {
	f := newFixture(t)
	p := f.P
	tok := p.Token("automation.*", "crm.*")
	ok := p.Do("POST", "/automation/pipelines", tok, newPipeline("callee", transformStep("t", "$")))
	require.Equal(t, 201, ok.Status, "%s", ok.Body)
	callee := ok.Payload()["_id"].(string)

	cases := []struct {
		name      string
		steps     []map[string]any
		trigger   map[string]any
		field     string
		fragment  string
		tokScopes []string
	}{
		{name: "unknown type", steps: []map[string]any{{"id": "a", "type": "teleport"}}, field: "steps[0].type", fragment: `step \"a\": unknown step type`},
		{name: "duplicate id", steps: []map[string]any{transformStep("a", "1"), transformStep("a", "2")}, field: "steps[1].id", fragment: "unique"},
		{name: "dangling next", steps: []map[string]any{{"id": "a", "type": "transform", "expression": "1", "next": "zz"}}, field: "steps[0].next", fragment: `\"zz\" names no step`},
		{name: "dangling branch", steps: []map[string]any{{"id": "c", "type": "condition", "if": map[string]any{"input.x": 1}, "then": "nope"}}, field: "steps[0].then"},
		{name: "bad JSONata", steps: []map[string]any{transformStep("calc", "$sum(")}, field: "steps[0].expression", fragment: "line 1"},
		{name: "bad JavaScript", steps: []map[string]any{{"id": "js", "type": "transform", "language": "javascript", "expression": "input.a +"}}, field: "steps[0].expression"},
		{name: "bad condition", steps: []map[string]any{{"id": "c", "type": "condition", "if": map[string]any{"x": map[string]any{"$bogus": 1}}}}, field: "steps[0].if"},
		{name: "foreign setting", steps: []map[string]any{{"id": "a", "type": "transform", "expression": "1", "url": "https://x.example"}}, field: "steps[0].url"},
		{name: "unknown template root", steps: []map[string]any{{"id": "h", "type": "http", "url": "https://x.example/{{env.HOME}}"}}, field: "steps[0]", fragment: "unknown root"},
		{name: "template to missing step", steps: []map[string]any{{"id": "h", "type": "http", "url": "https://x.example/{{steps.ghost.output}}"}}, field: "steps[0]", fragment: "no step has id"},
		{name: "secrets in a wait", steps: []map[string]any{{"id": "w", "type": "wait", "until": "{{secrets.api.date}}"}}, field: "steps[0]", fragment: "cannot use secrets"},
		{name: "bad duration", steps: []map[string]any{{"id": "w", "type": "wait", "duration": "soon"}}, field: "steps[0].duration"},
		{name: "http time-out too long", steps: []map[string]any{{"id": "h", "type": "http", "url": "https://x.example", "timeoutMs": 600000}}, field: "steps[0].timeoutMs"},
		{name: "db on a platform collection", steps: []map[string]any{{"id": "d", "type": "db", "collection": "webhooks", "op": "read", "filter": map[string]any{}}}, field: "steps[0].collection"},
		{name: "db without the right", steps: []map[string]any{taskStep("d", "x")}, field: "steps[0].collection", fragment: "crm.tasks.create", tokScopes: []string{"automation.*", "crm.tasks.view"}},
		{name: "missing function", steps: []map[string]any{{"id": "f", "type": "function", "function": "64b000000000000000000000"}}, field: "steps[0].function"},
		{name: "function without the right", steps: []map[string]any{{"id": "f", "type": "function", "function": "64b000000000000000000000"}}, field: "steps[0].function", fragment: "automation.functions.invoke", tokScopes: []string{"automation.pipelines.*", "automation.functions.view"}},
		{name: "unknown trigger event", steps: []map[string]any{transformStep("a", "1")}, trigger: map[string]any{"event": "consumers.exploded"}, field: "trigger.event"},
		{name: "bad trigger filter", steps: []map[string]any{transformStep("a", "1")}, trigger: map[string]any{"event": "consumers.created", "filter": map[string]any{"$where": "1"}}, field: "trigger.filter"},
		{name: "bad cron", steps: []map[string]any{transformStep("a", "1")}, trigger: map[string]any{"cron": "every day at nine"}, field: "trigger.cron"},
		{name: "bad time zone", steps: []map[string]any{transformStep("a", "1")}, trigger: map[string]any{"cron": "0 9 * * *", "timezone": "Europe/Atlantis"}, field: "trigger.timezone"},
		{name: "cron and event", steps: []map[string]any{transformStep("a", "1")}, trigger: map[string]any{"cron": "@hourly", "event": "consumers.created"}, field: "trigger"},
		{name: "missing trigger", steps: []map[string]any{transformStep("a", "1")}, trigger: map[string]any{"id": "64b000000000000000000000"}, field: "trigger.id"},
		{name: "no steps", steps: []map[string]any{}, field: "steps"},
		{name: "self call", steps: []map[string]any{{"id": "s", "type": "subPipeline", "pipeline": "SELF"}}, field: "steps[0].pipeline", fragment: "cycle"},
	}
	scenarios := make([]scenario, len(cases))
	for i, c := range cases {
		body := newPipeline("p", c.steps...)
		if c.trigger != nil {
			body["trigger"] = c.trigger
		}
		method, path := "POST", "/automation/pipelines"
		if strings.Contains(fmt.Sprint(c.steps), "SELF") {
			body["steps"].([]any)[0].(map[string]any)["pipeline"] = callee
			method, path = "PUT", "/automation/pipelines/"+callee
		}
		scopes := c.tokScopes
		if scopes == nil {
			scopes = []string{"automation.*", "crm.*"}
		}
		scenarios[i] = scenario{Name: c.name, Method: method, Path: path, Scopes: scopes, Body: body, Status: 422,
			Then: func(f *fixture, _ apitest.IDs, r *testenv.Resp) {
				// The field named may be the step's or one of its settings: a prefix.
				require.Contains(f.T, string(r.Body), `"field":"`+c.field, "%s", r.Body)
				if c.fragment != "" {
					require.Contains(f.T, string(r.Body), c.fragment)
				}
			}}
	}
	apitest.Run(t, f, scenarios)
}

func TestSubPipelineCycleAcrossPipelines(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("automation.*")
	a := p.Do("POST", "/automation/pipelines", tok, newPipeline("a", transformStep("t", "1")))
	require.Equal(t, 201, a.Status, "%s", a.Body)
	aID := a.Payload()["_id"].(string)
	b := p.Do("POST", "/automation/pipelines", tok, newPipeline("b", map[string]any{"id": "callA", "type": "subPipeline", "pipeline": aID}))
	require.Equal(t, 201, b.Status, "%s", b.Body)
	bID := b.Payload()["_id"].(string)
	r := p.Do("PATCH", "/automation/pipelines/"+aID, tok, map[string]any{"steps": []any{map[string]any{"id": "callB", "type": "subPipeline", "pipeline": bID}}})
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Contains(t, string(r.Body), `step \"callB\": subPipeline cycle: `+aID+" → "+bID+" → "+aID)
}

func TestPipelineVersionsAndManualRun(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*", "crm.*")
	body := newPipeline("onboard",
		transformStep("greet", `{"title": "Call " & input.name}`),
		map[string]any{"id": "vip", "type": "condition", "if": map[string]any{"input.vip": true}, "then": "task", "else": "end"},
		map[string]any{"id": "task", "type": "db", "collection": "tasks", "op": "create", "data": map[string]any{"title": "{{steps.greet.output.title}}"}},
	)
	r := p.Do("POST", "/automation/pipelines", tok, body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	id := r.Payload()["_id"].(string)
	require.EqualValues(t, 1, r.Payload()["version"])

	// A manual run of version 1.
	run := waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelines/"+id+"/actions/run", tok, map[string]any{"input": map[string]any{"name": "Ada", "vip": true}})))
	require.Equal(t, "success", run["status"], "%v", run)
	require.Equal(t, "manual", run["triggeredBy"])
	require.EqualValues(t, 1, run["pipelineVersion"])
	steps := run["steps"].([]any)
	require.Len(t, steps, 3)
	for _, s := range steps {
		st := s.(map[string]any)
		require.Equal(t, "success", st["status"], "%v", st)
		require.Contains(t, st, "input")
		// Whole milliseconds, like totalDuration (docs/decisions.md, "Durations").
		require.Equal(t, math.Trunc(st["duration"].(float64)), st["duration"], "%v", st)
	}
	task := steps[2].(map[string]any)["output"].(map[string]any)
	require.Equal(t, "Call Ada", task["title"])
	require.Equal(t, id, task["createdBy"], "records a pipeline writes name it as their author")
	require.Greater(t, run["totalDuration"].(float64), 0.0)
	require.Equal(t, math.Trunc(run["totalDuration"].(float64)), run["totalDuration"])

	// The else branch ends the run after the condition.
	run = waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelines/"+id+"/actions/run", tok, map[string]any{"input": map[string]any{"name": "Bob"}})))
	require.Equal(t, "success", run["status"])
	require.Len(t, run["steps"], 2)

	// Changing the steps makes version 2; toggling active does not.
	r = p.Do("PATCH", "/automation/pipelines/"+id, tok, map[string]any{"steps": []any{transformStep("greet", `"v2"`)}})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	require.EqualValues(t, 2, r.Payload()["version"])
	r = p.Do("PATCH", "/automation/pipelines/"+id, tok, map[string]any{"active": false})
	require.EqualValues(t, 2, r.Payload()["version"])
	versions := p.Do("GET", "/automation/pipelines/"+id+"/versions", tok, nil).List()
	require.Len(t, versions, 2)

	run = waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelines/"+id+"/actions/run", tok, map[string]any{})))
	require.Equal(t, "v2", run["output"], "an inactive pipeline still runs manually, with its current version")
	require.EqualValues(t, 2, run["pipelineVersion"])

	// Rerun: a new run of the current version with the same event.
	rr := waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelineruns/"+run["_id"].(string)+"/actions/rerun", tok, nil)))
	require.Equal(t, run["_id"], rr["rerunOf"])
	require.Equal(t, "success", rr["status"])
	require.Equal(t, 409, p.Do("POST", "/automation/pipelineruns/"+rr["_id"].(string)+"/actions/cancel", tok, nil).Status, "an ended run cannot be cancelled")
}

func TestCancelRun(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/pipelines", tok, newPipeline("slow", map[string]any{"id": "nap", "type": "wait", "duration": "1h"}, transformStep("after", "1")))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	runID := runOf(t, p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, nil))
	require.Equal(t, 403, p.Do("POST", "/automation/pipelineruns/"+runID+"/actions/cancel", p.Token("automation.pipelineruns.view"), nil).Status)
	c := p.Do("POST", "/automation/pipelineruns/"+runID+"/actions/cancel", tok, nil)
	require.Equal(t, 200, c.Status, "%s", c.Body)
	run := waitRun(t, p, tok, runID)
	require.Equal(t, "failed", run["status"])
	require.Equal(t, true, run["cancelled"])
	require.Equal(t, "cancelled", run["error"].(map[string]any)["kind"])
}

// TestCancelRunAbortsHTTPRequest: cancelling a run whose http step waits
// on a slow receiver ends the request (its context, as the receiver sees
// it) within seconds, and the run ends cancelled.
func TestCancelRunAbortsHTTPRequest(t *testing.T) {
	t.Parallel()
	arrived, aborted := make(chan struct{}, 1), make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		arrived <- struct{}{}
		select {
		case <-req.Context().Done():
			aborted <- struct{}{}
		case <-time.After(time.Minute):
		}
	}))
	t.Cleanup(slow.Close)
	p := platformWithWorker(t, testenv.Options{})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/pipelines", tok, newPipeline("slow call",
		map[string]any{"id": "call", "type": "http", "method": "GET", "url": slow.URL + "/slow", "timeoutMs": 60000},
		transformStep("after", "1")))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	runID := runOf(t, p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, nil))
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the http step's request never reached the receiver")
	}
	c := p.Do("POST", "/automation/pipelineruns/"+runID+"/actions/cancel", tok, nil)
	require.Equal(t, 200, c.Status, "%s", c.Body)
	cancelled := time.Now()
	select {
	case <-aborted:
		require.Less(t, time.Since(cancelled), 10*time.Second, "the request ended, but late")
	case <-time.After(20 * time.Second):
		t.Fatal("the request still runs after the run was cancelled")
	}
	run := waitRun(t, p, tok, runID)
	require.Equal(t, "failed", run["status"])
	require.Equal(t, true, run["cancelled"])
	require.Equal(t, "cancelled", run["error"].(map[string]any)["kind"])
	steps := run["steps"].([]any)
	require.Len(t, steps, 1, "the step after the http call never ran")
	require.Equal(t, "failed", steps[0].(map[string]any)["status"])
}

func TestEventTriggerStartsMatchingPipelinesOnly(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("automation.*", "crm.*")
	mk := func(name, country string) string {
		body := newPipeline(name, taskStep("task", "Welcome {{consumer.email}} ("+name+")"))
		body["trigger"] = map[string]any{"event": "consumers.created", "filter": map[string]any{"country": country}}
		r := p.Do("POST", "/automation/pipelines", tok, body)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		return r.Payload()["_id"].(string)
	}
	de, fr := mk("de", "DE"), mk("fr", "FR")
	c := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "ada@example.com", "country": "DE"})
	require.Equal(t, 201, c.Status, "%s", c.Body)

	var runs []map[string]any
	require.Eventually(t, func() bool {
		runs = p.Do("GET", "/automation/pipelineruns?pipeline="+de, tok, nil).List()
		return len(runs) == 1 && runs[0]["status"] == "success"
	}, 60*time.Second, 200*time.Millisecond)
	require.Equal(t, "event", runs[0]["triggeredBy"])
	require.Equal(t, "consumers.created", runs[0]["event"].(map[string]any)["name"])
	tasks := p.Do("GET", "/crm/tasks?filter="+url.QueryEscape(`{"title":"Welcome ada@example.com (de)"}`), tok, nil).List()
	require.Len(t, tasks, 1)
	require.Empty(t, p.Do("GET", "/automation/pipelineruns?pipeline="+fr, tok, nil).List(), "the FR filter does not match")
}

// TestTriggerStep: a first step of type trigger starts the pipeline as
// the definition's trigger would (an event subscription, a cron
// schedule); with a trigger as well, or anywhere but first, it is a 422.
func TestTriggerStep(t *testing.T) {
	t.Parallel()
	// Cron every second, so the test sees runs soon.
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) { c.CronMinInterval = time.Second }})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*", "crm.*")
	onDE := map[string]any{"id": "start", "type": "trigger", "event": "consumers.created", "filter": map[string]any{"country": "DE"}}

	both := newPipeline("both", onDE, taskStep("task", "x"))
	both["trigger"] = map[string]any{"event": "consumers.created"}
	r := p.Do("POST", "/automation/pipelines", tok, both)
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Contains(t, string(r.Body), "both say what starts the pipeline")
	r = p.Do("POST", "/automation/pipelines", tok, newPipeline("late", taskStep("task", "x"), onDE))
	require.Equal(t, 422, r.Status, "%s", r.Body)
	require.Contains(t, string(r.Body), "can only be the first step")

	r = p.Do("POST", "/automation/pipelines", tok, newPipeline("on DE", onDE, taskStep("task", "Hello {{consumer.email}}")))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	de := r.Payload()["_id"].(string)
	require.Equal(t, 201, p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "fr@example.com", "country": "FR"}).Status)
	require.Equal(t, 201, p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "de@example.com", "country": "DE"}).Status)
	var list []map[string]any
	require.Eventually(t, func() bool {
		list = p.Do("GET", "/automation/pipelineruns?pipeline="+de, tok, nil).List()
		return len(list) == 1 && list[0]["status"] == "success"
	}, 60*time.Second, 200*time.Millisecond)
	require.Equal(t, "event", list[0]["triggeredBy"])
	first := list[0]["steps"].([]any)[0].(map[string]any)
	require.Equal(t, "trigger", first["type"])
	require.Equal(t, "success", first["status"])
	require.Len(t, p.Do("GET", "/crm/tasks?filter="+url.QueryEscape(`{"title":"Hello de@example.com"}`), tok, nil).List(), 1)

	tick := map[string]any{"id": "tick", "type": "trigger", "cron": "@every 1s"}
	r = p.Do("POST", "/automation/pipelines", tok, newPipeline("ticker", tick, transformStep("t", "event.name")))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	ticker := r.Payload()["_id"].(string)
	require.Eventually(t, func() bool {
		list := p.Do("GET", "/automation/pipelineruns?pipeline="+ticker+"&status=success", tok, nil).List()
		return len(list) > 0 && list[0]["triggeredBy"] == "cron" && list[0]["output"] == "cron"
	}, 30*time.Second, 250*time.Millisecond)
	require.Equal(t, 200, p.Do("DELETE", "/automation/pipelines/"+ticker, tok, nil).Status)
}

func TestPipelinesAreTenantScoped(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/pipelines", tok, newPipeline("mine", transformStep("t", "1")))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	id := r.Payload()["_id"].(string)
	other, user := p.OtherCustomer("rival")
	otok := p.TokenFor(other.ID, user.ID, "automation.*")
	require.Equal(t, 404, p.Do("GET", "/automation/pipelines/"+id, otok, nil).Status)
	require.Equal(t, 404, p.Do("POST", "/automation/pipelines/"+id+"/actions/run", otok, nil).Status)
	require.Empty(t, p.Do("GET", "/automation/pipelines", otok, nil).List())
	// Another customer's pipeline cannot be called as a sub-pipeline.
	s := p.Do("POST", "/automation/pipelines", otok, newPipeline("thief", map[string]any{"id": "s", "type": "subPipeline", "pipeline": id}))
	require.Equal(t, 422, s.Status, "%s", s.Body)
	require.Equal(t, 403, p.Do("POST", "/automation/pipelines", p.Token("automation.pipelines.view"), newPipeline("x", transformStep("t", "1"))).Status)
	require.Equal(t, 403, p.Do("POST", "/automation/pipelines/"+id+"/actions/run", p.Token("automation.pipelines.view", "automation.pipelines.edit"), nil).Status)
}
