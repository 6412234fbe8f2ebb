package workflows_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"platform/kernel/events"
	"platform/kernel/notify"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/automation/pipeline"
	"platform/modules/automation/runs"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// Pipeline runs in the time-skipping environment, with the real activities
// on a real SQLite store: every test checks the run record the interpreter
// wrote (collection pipelineruns, _id = the run id), not only the result.

func TestPipelineConditionBranches(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	id := f.pipeline(`{"name": "route by total", "steps": [
		{"id": "total", "type": "transform", "expression": "{\"total\": $sum(event.data.items.price)}"},
		{"id": "check", "type": "condition", "if": {"steps.total.output.total": {"$gte": 100}}, "then": "big", "else": "small"},
		{"id": "small", "type": "transform", "expression": "\"small\"", "next": "end"},
		{"id": "big", "type": "transform", "expression": "\"big\""}
	]}`)
	for _, c := range []struct {
		name   string
		prices []any
		want   string
		path   []string
	}{
		{"then", []any{60, 50}, "big", []string{"total", "check", "big"}},
		{"else, then end", []any{10}, "small", []string{"total", "check", "small"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := f.newEnv()
			items := []any{}
			for _, p := range c.prices {
				items = append(items, map[string]any{"price": p})
			}
			runID := f.start(env, id, map[string]any{"items": items})
			require.Equal(t, c.want, succeeded(t, env))
			rec := f.record(runID)
			requireFinished(t, rec, runs.StatusSuccess)
			require.Equal(t, c.path, stepIDs(t, rec))
			check := step(t, rec, "check")
			require.Equal(t, "condition", check["type"])
			require.Equal(t, runs.StatusSuccess, check["status"])
			require.Equal(t, map[string]any{"matched": c.want == "big", "next": c.want}, check["output"])
			require.Equal(t, map[string]any{"if": map[string]any{"steps.total.output.total": map[string]any{"$gte": 100.0}}}, check["input"])
			require.Equal(t, c.want, rec["output"])
		})
	}

	// then alone: a match jumps (here to end), no match goes on with the
	// following step.
	gate := f.pipeline(`{"name": "gate", "steps": [
		{"id": "gate", "type": "condition", "if": {"input.skip": true}, "then": "end"},
		{"id": "work", "type": "transform", "expression": "\"worked\""}
	]}`)
	t.Run("then end", func(t *testing.T) {
		env := f.newEnv()
		runID := f.start(env, gate, map[string]any{"skip": true})
		require.Equal(t, map[string]any{"matched": true, "next": "end"}, succeeded(t, env))
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusSuccess)
		require.Equal(t, []string{"gate"}, stepIDs(t, rec))
	})
	t.Run("no else goes on", func(t *testing.T) {
		env := f.newEnv()
		runID := f.start(env, gate, map[string]any{"skip": false})
		require.Equal(t, "worked", succeeded(t, env))
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusSuccess)
		require.Equal(t, []string{"gate", "work"}, stepIDs(t, rec))
		require.Equal(t, map[string]any{"matched": false, "next": ""}, step(t, rec, "gate")["output"])
	})
}

func TestPipelineTransform(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	id := f.pipeline(`{"name": "transforms", "steps": [
		{"id": "a", "type": "transform", "language": "jsonata",
		 "expression": "{\"name\": $uppercase(event.data.name), \"n\": $count(input.items), \"customer\": customer.slug}"},
		{"id": "b", "type": "transform", "language": "javascript",
		 "expression": "({greeting: 'Hello ' + input.steps.a.output.name, double: input.steps.a.output.n * 2, city: input.event.data.city})"}
	]}`)
	env := f.newEnv()
	runID := f.start(env, id, map[string]any{"name": "Ada", "city": "Berlin", "items": []any{"x", "y"}})
	want := map[string]any{"greeting": "Hello ADA", "double": 4.0, "city": "Berlin"}
	require.Equal(t, want, docOf(t, succeeded(t, env)))
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusSuccess)
	require.Equal(t, []string{"a", "b"}, stepIDs(t, rec))
	a := step(t, rec, "a")
	require.Equal(t, map[string]any{"name": "ADA", "n": 2.0, "customer": "acme"}, a["output"])
	require.Equal(t, "jsonata", a["input"].(map[string]any)["language"])
	b := step(t, rec, "b")
	require.Equal(t, want, b["output"])
	require.Equal(t, "js-expression", b["input"].(map[string]any)["language"])
	require.Equal(t, want, docOf(t, rec["output"]))
}

func TestPipelineHTTP(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	srv := newReceiver(t, func(n int, r received) (int, any) {
		switch {
		case strings.HasPrefix(r.Path, "/orders/"):
			return http.StatusCreated, map[string]any{"ok": true, "order": strings.TrimPrefix(r.Path, "/orders/")}
		case r.Path == "/broken":
			return http.StatusInternalServerError, map[string]any{"error": "down"}
		}
		return http.StatusNotFound, nil
	})

	t.Run("request and response", func(t *testing.T) {
		id := f.pipeline(fmt.Sprintf(`{"name": "post order", "steps": [
			{"id": "calc", "type": "transform", "expression": "{\"total\": $sum(event.data.items)}"},
			{"id": "call", "type": "http", "method": "post",
			 "url": "%s/orders/{{event.data.id}}?customer={{customer.slug}}",
			 "headers": {"X-Order": "{{event.data.id}}", "X-Total": "{{steps.calc.output.total}}"},
			 "body": {"id": "{{event.data.id}}", "total": "{{steps.calc.output.total}}", "note": "order {{event.data.id}} of {{customer.name}}"}}
		]}`, srv.URL))
		env := f.newEnv()
		runID := f.start(env, id, map[string]any{"id": "o-17", "items": []any{60, 50}})
		out := docOf(t, succeeded(t, env))
		require.EqualValues(t, 201, out["status"])
		require.Equal(t, map[string]any{"ok": true, "order": "o-17"}, out["body"])
		require.Equal(t, "application/json", out["headers"].(map[string]any)["content-type"])

		got := srv.received()
		require.Len(t, got, 1)
		require.Equal(t, http.MethodPost, got[0].Method)
		require.Equal(t, "/orders/o-17", got[0].Path)
		require.Equal(t, "customer=acme", got[0].Query)
		require.Equal(t, "o-17", got[0].Header.Get("X-Order"))
		require.Equal(t, "110", got[0].Header.Get("X-Total"))
		require.Equal(t, "application/json", got[0].Header.Get("Content-Type"))
		require.JSONEq(t, `{"id": "o-17", "total": 110, "note": "order o-17 of Acme Corp"}`, got[0].Body, "a lone template keeps its type")

		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusSuccess)
		call := step(t, rec, "call")
		require.Equal(t, "http", call["type"])
		require.Equal(t, map[string]any{
			"method": "POST", "url": srv.URL + "/orders/o-17?customer=acme",
			"headers": map[string]any{"X-Order": "o-17", "X-Total": "110"},
			"body":    map[string]any{"id": "o-17", "total": 110.0, "note": "order o-17 of Acme Corp"},
		}, call["input"])
		require.Equal(t, out, call["output"])
	})

	for _, c := range []struct {
		name, retry string
		calls       int
	}{
		{"500 with the default policy: 3 attempts", "", 3},
		{"500 with maxAttempts 2", `, "retry": {"maxAttempts": 2, "initialIntervalMs": 10}`, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			broken := newReceiver(t, func(int, received) (int, any) { return http.StatusInternalServerError, map[string]any{"error": "down"} })
			id := f.pipeline(fmt.Sprintf(`{"name": "broken", "steps": [{"id": "call", "type": "http", "url": "%s/broken"%s}]}`, broken.URL, c.retry))
			env := f.newEnv()
			runID := f.start(env, id, nil)
			e := failed(t, env)
			require.Equal(t, "http_status", e.Kind)
			require.Len(t, broken.received(), c.calls)
			rec := f.record(runID)
			requireFinished(t, rec, runs.StatusFailed)
			require.Equal(t, "call", rec["failedStep"])
			require.Equal(t, "http_status", docOf(t, rec["error"])["kind"])
			require.Contains(t, docOf(t, rec["error"])["message"], "answered 500")
			call := step(t, rec, "call")
			require.Equal(t, runs.StatusFailed, call["status"])
			require.Nil(t, call["output"])
		})
	}

	t.Run("404 is not retried", func(t *testing.T) {
		missing := newReceiver(t, func(int, received) (int, any) { return http.StatusNotFound, nil })
		id := f.pipeline(fmt.Sprintf(`{"name": "missing", "steps": [
			{"id": "call", "type": "http", "url": "%s/nothing", "retry": {"maxAttempts": 5, "initialIntervalMs": 10}}]}`, missing.URL))
		env := f.newEnv()
		runID := f.start(env, id, nil)
		require.Equal(t, "http_status", failed(t, env).Kind)
		require.Len(t, missing.received(), 1)
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusFailed)
		require.Contains(t, docOf(t, rec["error"])["message"], "answered 404")
	})
}

// TestPipelineHTTPRetriesThenSucceeds: a receiver failing twice is called
// a third time by the step's retry policy and the run succeeds.
func TestPipelineHTTPRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	srv := newReceiver(t, func(n int, _ received) (int, any) {
		if n <= 2 {
			return http.StatusServiceUnavailable, map[string]any{"error": "busy"}
		}
		return http.StatusOK, map[string]any{"attempt": n}
	})
	id := f.pipeline(fmt.Sprintf(`{"name": "flaky", "steps": [
		{"id": "call", "type": "http", "method": "PUT", "url": "%s/flaky", "body": "{{input.text}}",
		 "retry": {"maxAttempts": 3, "initialIntervalMs": 10}}]}`, srv.URL))
	env := f.newEnv()
	var starts []time.Time
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == "RunHTTP" {
			starts = append(starts, env.Now())
		}
	})
	runID := f.start(env, id, map[string]any{"text": "hello"})
	out := docOf(t, succeeded(t, env))
	require.EqualValues(t, 200, out["status"])
	require.Equal(t, map[string]any{"attempt": 3.0}, out["body"])
	got := srv.received()
	require.Len(t, got, 3)
	for _, r := range got {
		require.Equal(t, http.MethodPut, r.Method)
		require.Equal(t, "hello", r.Body)
		require.Equal(t, "text/plain; charset=utf-8", r.Header.Get("Content-Type"))
	}
	require.Len(t, starts, 3)
	require.Less(t, starts[2].Sub(starts[0]), time.Second, "10 ms, then 20 ms between attempts")
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusSuccess)
	require.Equal(t, []string{"call"}, stepIDs(t, rec))
	require.Equal(t, runs.StatusSuccess, step(t, rec, "call")["status"])
	require.EqualValues(t, 3, step(t, rec, "call")["attempts"], "the record says which attempt succeeded")
}

func TestPipelineDB(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	id := f.pipeline(`{"name": "make task", "steps": [
		{"id": "create", "type": "db", "collection": "tasks", "op": "create",
		 "data": {"title": "Call {{event.data.name}}", "priority": "high", "description": "order {{event.data.order}}"}},
		{"id": "byId", "type": "db", "collection": "tasks", "op": "read", "recordId": "{{steps.create.output._id}}"},
		{"id": "byFilter", "type": "db", "collection": "tasks", "op": "read", "filter": {"title": "Call {{event.data.name}}"}, "limit": 10}
	]}`)
	env := f.newEnv()
	runID := f.start(env, id, map[string]any{"name": "Ada", "order": "o-1"})
	out := docOf(t, succeeded(t, env))
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusSuccess)
	require.Equal(t, []string{"create", "byId", "byFilter"}, stepIDs(t, rec))

	created := step(t, rec, "create")["output"].(map[string]any)
	taskID, _ := created["_id"].(string)
	require.True(t, store.ValidID(taskID), "created record id %v", created["_id"])
	require.Equal(t, "Call Ada", created["title"])
	require.Equal(t, "open", created["_status"], "defaults applied")
	require.Equal(t, map[string]any{"collection": "tasks", "op": "create",
		"data": map[string]any{"title": "Call Ada", "priority": "high", "description": "order o-1"}}, step(t, rec, "create")["input"])

	byID := step(t, rec, "byId")["output"].(map[string]any)
	require.Equal(t, taskID, byID["_id"])
	require.Equal(t, "high", byID["priority"])
	require.EqualValues(t, 1, out["count"])
	require.Equal(t, taskID, out["records"].([]any)[0].(map[string]any)["_id"])

	// In the store, written by the pipeline, with its created event.
	task, err := f.st.Collection("tasks").Get(f.ctx, taskID)
	require.NoError(t, err)
	require.Equal(t, "Call Ada", task["title"])
	require.Equal(t, "order o-1", task["description"])
	require.Equal(t, id, task["createdBy"], "the pipeline is the record's author")
	evs, err := f.st.Collection(events.Collection).Find(f.ctx, store.FindOptions{Filter: query.Eq("name", "tasks.created")})
	require.NoError(t, err)
	require.Len(t, evs, 1)
	require.Equal(t, taskID, docOf(t, evs[0]["data"])["_id"])
}

// TestPipelineDBUpdateIsStamped: a db step's update goes through the
// record service like an API call: updatedAt moves, modifiedBy names the
// pipeline, and the updated event is recorded.
func TestPipelineDBUpdateIsStamped(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	tasks := f.app.Registry.Get("crm", "tasks")
	created, err := f.app.Service.Create(f.ctx, tasks, map[string]any{"title": "before"})
	require.NoError(t, err)
	taskID := created["_id"].(string)
	id := f.pipeline(`{"name": "rename task", "steps": [
		{"id": "rename", "type": "db", "collection": "tasks", "op": "update", "recordId": "` + taskID + `", "data": {"title": "after"}}
	]}`)
	time.Sleep(5 * time.Millisecond) // updatedAt has millisecond precision
	env := f.newEnv()
	requireFinished(t, f.record(f.start(env, id, nil)), runs.StatusSuccess)

	task, err := f.st.Collection("tasks").Get(f.ctx, taskID)
	require.NoError(t, err)
	require.Equal(t, "after", task["title"])
	require.Equal(t, id, task["modifiedBy"], "the pipeline made the change")
	require.Equal(t, created["createdBy"], task["createdBy"])
	require.True(t, task["updatedAt"].(time.Time).After(created["updatedAt"].(time.Time)), "updatedAt moves")
	evs, err := f.st.Collection(events.Collection).Find(f.ctx, store.FindOptions{Filter: query.Eq("name", "tasks.updated")})
	require.NoError(t, err)
	require.Len(t, evs, 1)
	require.Equal(t, "after", docOf(t, evs[0]["data"])["title"])
}

// TestPipelineDBRefusedWrite: a write the API refuses (a required field
// missing) fails the step for good, whatever its retry policy.
func TestPipelineDBRefusedWrite(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	id := f.pipeline(`{"name": "bad task", "steps": [
		{"id": "create", "type": "db", "collection": "tasks", "op": "create", "data": {"priority": "urgent"},
		 "retry": {"maxAttempts": 3, "initialIntervalMs": 10}}]}`)
	env := f.newEnv()
	attempts := 0
	env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) {
		if info.ActivityType.Name == "RunDB" {
			attempts++
		}
	})
	runID := f.start(env, id, nil)
	e := failed(t, env)
	require.Equal(t, "db", e.Kind)
	require.Contains(t, e.Message, "title")
	require.Equal(t, 1, attempts, "not retried")
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusFailed)
	require.Equal(t, "create", rec["failedStep"])
	require.Equal(t, "db", docOf(t, step(t, rec, "create")["error"])["kind"])
	n, err := f.st.Collection("tasks").Count(f.ctx, nil)
	require.NoError(t, err)
	require.Zero(t, n)
}

func TestPipelineNotification(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	sms := newReceiver(t, func(int, received) (int, any) { return http.StatusAccepted, nil })
	f.acts.Notifier = &notify.Router{SMS: &notify.HTTPSMS{URL: sms.URL + "/sms", Token: "sms-provider-token"}}
	id := f.pipeline(`{"name": "tell", "steps": [
		{"id": "sms", "type": "notification", "channel": "sms", "to": "{{event.data.phone}}",
		 "template": "Hi {{event.data.name}}, order {{event.data.order}} has shipped."}
	]}`)
	env := f.newEnv()
	runID := f.start(env, id, map[string]any{"phone": "+4915112345678", "name": "Ada", "order": "o-9"})
	require.Equal(t, map[string]any{"sent": true, "channel": "sms", "recipients": 1.0}, docOf(t, succeeded(t, env)))
	got := sms.received()
	require.Len(t, got, 1)
	require.Equal(t, "/sms", got[0].Path)
	require.Equal(t, "Bearer sms-provider-token", got[0].Header.Get("Authorization"))
	require.JSONEq(t, `{"to": "+4915112345678", "body": "Hi Ada, order o-9 has shipped."}`, got[0].Body)
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusSuccess)
	require.Equal(t, map[string]any{"channel": "sms", "to": []any{"+4915112345678"}, "subject": "",
		"body": "Hi Ada, order o-9 has shipped."}, step(t, rec, "sms")["input"])

	// A channel the worker has not configured fails for good, at once.
	mail := f.pipeline(`{"name": "mail", "steps": [
		{"id": "mail", "type": "notification", "channel": "mail", "to": "ada@example.com", "subject": "Hi", "template": "Hello"}]}`)
	env = f.newEnv()
	runID = f.start(env, mail, nil)
	e := failed(t, env)
	require.Equal(t, "notification", e.Kind)
	require.Contains(t, e.Message, "PLATFORM_SMTP_ADDR")
	rec = f.record(runID)
	requireFinished(t, rec, runs.StatusFailed)
	require.Equal(t, "mail", rec["failedStep"])
}

func TestPipelineWait(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	id := f.pipeline(`{"name": "waits", "steps": [
		{"id": "pause", "type": "wait", "duration": "2h"},
		{"id": "until", "type": "wait", "until": "{{event.data.at}}"},
		{"id": "past", "type": "wait", "until": "2020-01-01T00:00:00Z"}
	]}`)
	env := f.newEnv()
	env.SetStartTime(t0)
	runID := f.start(env, id, map[string]any{"at": t0.Add(5 * time.Hour).Format(time.RFC3339)})
	require.Equal(t, map[string]any{"waitedMs": 0.0}, docOf(t, succeeded(t, env)))
	require.WithinDuration(t, t0.Add(5*time.Hour), env.Now(), time.Second, "the run waited 5 h of workflow time")
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusSuccess)
	pause := step(t, rec, "pause")
	require.Equal(t, map[string]any{"duration": "2h"}, pause["input"])
	require.Equal(t, map[string]any{"waitedMs": float64(2 * time.Hour / time.Millisecond)}, pause["output"])
	require.Equal(t, float64(2*time.Hour/time.Millisecond), pause["duration"])
	until := step(t, rec, "until")
	require.Equal(t, map[string]any{"until": "2026-03-01T14:00:00Z"}, until["input"])
	require.InDelta(t, float64(3*time.Hour/time.Millisecond), until["output"].(map[string]any)["waitedMs"], 1000)
	require.Equal(t, map[string]any{"waitedMs": 0.0}, step(t, rec, "past")["output"])
}

// TestPipelineUnparsableStepsFail: a version frozen before a validation
// rule (stored here without validation) whose condition or wait duration
// does not parse fails that step with a clear error, instead of taking
// the condition as false or skipping the wait; onError still applies.
func TestPipelineUnparsableStepsFail(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	for _, c := range []struct {
		name, step, kind, message string
	}{
		{"condition", `{"id": "bad", "type": "condition", "if": {"input.n": {"$bogus": 1}}, "then": "end"}`, "condition", "the condition does not parse"},
		{"wait", `{"id": "bad", "type": "wait", "duration": "soon"}`, "wait", `duration "soon" is not a duration`},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := store.NewID()
			f.storePipeline(id, `{"name": "old rules", "steps": [`+c.step+`,
				{"id": "after", "type": "transform", "expression": "\"ran\""}]}`, false)
			env := f.newEnv()
			runID := f.start(env, id, map[string]any{"n": 1})
			e := failed(t, env)
			require.Equal(t, c.kind, e.Kind)
			require.Contains(t, e.Message, c.message)
			rec := f.record(runID)
			requireFinished(t, rec, runs.StatusFailed)
			require.Equal(t, "bad", rec["failedStep"])
			require.Equal(t, []string{"bad"}, stepIDs(t, rec))
			require.Equal(t, c.kind, docOf(t, step(t, rec, "bad")["error"])["kind"])
		})
		t.Run(c.name+" onError continue", func(t *testing.T) {
			id := store.NewID()
			withContinue := strings.Replace(c.step, `"id": "bad",`, `"id": "bad", "onError": "continue",`, 1)
			f.storePipeline(id, `{"name": "old rules", "steps": [`+withContinue+`,
				{"id": "after", "type": "transform", "expression": "\"ran\""}]}`, false)
			env := f.newEnv()
			runID := f.start(env, id, nil)
			require.Equal(t, "ran", succeeded(t, env))
			rec := f.record(runID)
			require.Equal(t, []string{"bad", "after"}, stepIDs(t, rec))
			require.Equal(t, runs.StatusFailed, step(t, rec, "bad")["status"])
		})
	}
}

func TestPipelineSubPipeline(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	child := f.pipeline(`{"name": "child", "steps": [
		{"id": "double", "type": "transform", "expression": "{\"doubled\": input.n * 2, \"note\": input.note, \"event\": event.name}"}]}`)
	parent := f.pipeline(fmt.Sprintf(`{"name": "parent", "steps": [
		{"id": "prep", "type": "transform", "expression": "event.data.n + 1"},
		{"id": "call", "type": "subPipeline", "pipeline": "%s", "input": {"n": "{{steps.prep.output}}", "note": "from {{customer.slug}}"}},
		{"id": "after", "type": "transform", "expression": "steps.call.output.doubled + 1"}
	]}`, child))
	env := f.newEnv()
	runID := f.start(env, parent, map[string]any{"n": 4})
	require.Equal(t, 11.0, succeeded(t, env))

	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusSuccess)
	require.Equal(t, []string{"prep", "call", "after"}, stepIDs(t, rec))
	childRun := contract.DerivedID("subpipeline", runID, "call", "1")
	call := step(t, rec, "call")
	require.Equal(t, map[string]any{"pipeline": child, "run": childRun, "input": map[string]any{"n": 5.0, "note": "from acme"}}, call["input"])
	require.Equal(t, map[string]any{"doubled": 10.0, "note": "from acme", "event": "subPipeline"}, call["output"])
	require.EqualValues(t, 0, rec["depth"])
	require.NotContains(t, rec, "parentRun")

	c := f.record(childRun)
	requireFinished(t, c, runs.StatusSuccess)
	require.Equal(t, child, c["pipeline"])
	require.Equal(t, runID, c["parentRun"])
	require.EqualValues(t, 1, c["depth"])
	require.EqualValues(t, 1, c["pipelineVersion"])
	require.Equal(t, "child", c["pipelineName"])
	require.Equal(t, runs.ByManual, c["triggeredBy"], "a child is triggered as its parent was")
	ev := docOf(t, c["event"])
	require.Equal(t, "subPipeline", ev["name"])
	require.Equal(t, map[string]any{"n": 5.0, "note": "from acme"}, ev["data"])
	require.Equal(t, map[string]any{"doubled": 10.0, "note": "from acme", "event": "subPipeline"}, docOf(t, c["output"]))
}

// TestPipelineSubPipelineDepthLimit: a chain of pipelines each calling
// the next fails at the call that would nest deeper than MaxDepth, and
// the failure travels up to the top run.
func TestPipelineSubPipelineDepthLimit(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	// p[0] calls p[1] ... calls p[MaxDepth+1], a plain transform: the run
	// of p[MaxDepth] (depth MaxDepth) may not start another.
	ids := make([]string, contract.MaxDepth+2)
	ids[len(ids)-1] = f.pipeline(`{"name": "leaf", "steps": [{"id": "leaf", "type": "transform", "expression": "\"leaf\""}]}`)
	for i := len(ids) - 2; i >= 0; i-- {
		ids[i] = f.pipeline(fmt.Sprintf(`{"name": "level %d", "steps": [{"id": "call", "type": "subPipeline", "pipeline": %q}]}`, i, ids[i+1]))
	}
	env := f.newEnv()
	runID := f.start(env, ids[0], map[string]any{"x": 1})
	e := failed(t, env)
	require.Equal(t, "subpipeline", e.Kind)
	require.Contains(t, e.Message, fmt.Sprintf("nest at most %d deep", contract.MaxDepth))

	run := runID
	for depth := 0; depth <= contract.MaxDepth; depth++ {
		rec := f.record(run)
		requireFinished(t, rec, runs.StatusFailed)
		require.EqualValues(t, depth, rec["depth"])
		require.Equal(t, ids[depth], rec["pipeline"])
		require.Equal(t, "call", rec["failedStep"])
		kind := docOf(t, rec["error"])["kind"]
		if depth == contract.MaxDepth {
			require.Equal(t, "depth", kind)
		} else {
			require.Equal(t, "subpipeline", kind)
		}
		next := contract.DerivedID("subpipeline", run, "call", "0")
		require.Equal(t, next, docOf(t, step(t, rec, "call")["input"])["run"])
		run = next
	}
	n, err := f.st.Collection(runs.Runs).Count(f.ctx, nil)
	require.NoError(t, err)
	require.EqualValues(t, contract.MaxDepth+1, n, "no run of the leaf")
}

func TestPipelineFunction(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	greet := f.function(`console.log("greeting", input.name);
console.info("items", input.items.length, {first: input.items[0]});
return { greeting: "Hello " + input.name, count: input.items.length };`)
	throws := f.function(`console.log("checking", input.sku);
throw new Error("no stock for " + input.sku);`)

	t.Run("output and logs", func(t *testing.T) {
		id := f.pipeline(fmt.Sprintf(`{"name": "fn", "steps": [
			{"id": "fn", "type": "function", "function": %q, "input": {"name": "{{event.data.name}}", "items": "{{event.data.items}}"}}]}`, greet))
		env := f.newEnv()
		runID := f.start(env, id, map[string]any{"name": "Ada", "items": []any{"a", "b"}})
		require.Equal(t, map[string]any{"greeting": "Hello Ada", "count": 2.0}, docOf(t, succeeded(t, env)))
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusSuccess)
		fn := step(t, rec, "fn")
		require.Equal(t, []any{"greeting Ada", `items 2 {"first":"a"}`}, fn["logs"])
		require.Equal(t, map[string]any{"function": greet, "version": 1.0, "input": map[string]any{"name": "Ada", "items": []any{"a", "b"}}}, fn["input"])
	})

	t.Run("the run's input by default", func(t *testing.T) {
		id := f.pipeline(fmt.Sprintf(`{"name": "fn default", "steps": [{"id": "fn", "type": "function", "function": %q}]}`, greet))
		env := f.newEnv()
		runID := f.start(env, id, map[string]any{"name": "Bo", "items": []any{"x"}})
		require.Equal(t, map[string]any{"greeting": "Hello Bo", "count": 1.0}, docOf(t, succeeded(t, env)))
		requireFinished(t, f.record(runID), runs.StatusSuccess)
	})

	t.Run("throws", func(t *testing.T) {
		id := f.pipeline(fmt.Sprintf(`{"name": "fn throws", "steps": [
			{"id": "fn", "type": "function", "function": %q, "input": {"sku": "{{event.data.sku}}"}}]}`, throws))
		env := f.newEnv()
		runID := f.start(env, id, map[string]any{"sku": "A-1"})
		e := failed(t, env)
		require.Equal(t, "runtime", e.Kind)
		require.Contains(t, e.Message, "no stock for A-1")
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusFailed)
		require.Equal(t, "fn", rec["failedStep"])
		fn := step(t, rec, "fn")
		require.Equal(t, runs.StatusFailed, fn["status"])
		require.Equal(t, "runtime", fn["error"].(map[string]any)["kind"])
		require.Contains(t, fn["error"].(map[string]any)["message"], "no stock for A-1")
		require.Equal(t, []any{"checking A-1"}, fn["logs"], "the logs of a failed call are kept")
	})
}

// TestPipelineFlow: next jumps, onError continue and goto, the default
// fail, and the step limit of a run that loops for ever.
func TestPipelineFlow(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)

	t.Run("next", func(t *testing.T) {
		id := f.pipeline(`{"name": "jumps", "steps": [
			{"id": "a", "type": "transform", "expression": "1", "next": "c"},
			{"id": "b", "type": "transform", "expression": "2"},
			{"id": "c", "type": "transform", "expression": "steps.a.output + 10", "next": "end"},
			{"id": "d", "type": "transform", "expression": "4"}
		]}`)
		env := f.newEnv()
		runID := f.start(env, id, nil)
		require.Equal(t, 11.0, succeeded(t, env))
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusSuccess)
		require.Equal(t, []string{"a", "c"}, stepIDs(t, rec))
	})

	t.Run("onError continue", func(t *testing.T) {
		id := f.pipeline(`{"name": "continue", "steps": [
			{"id": "a", "type": "transform", "expression": "1"},
			{"id": "bad", "type": "transform", "language": "javascript", "expression": "input.nothing.deeper", "onError": "continue"},
			{"id": "c", "type": "transform", "expression": "$exists(steps.bad.output) ? \"bad had output\" : steps.a.output + 1"}
		]}`)
		env := f.newEnv()
		runID := f.start(env, id, nil)
		require.Equal(t, 2.0, succeeded(t, env))
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusSuccess)
		require.Equal(t, []string{"a", "bad", "c"}, stepIDs(t, rec))
		bad := step(t, rec, "bad")
		require.Equal(t, runs.StatusFailed, bad["status"])
		require.Equal(t, "runtime", bad["error"].(map[string]any)["kind"])
		require.Nil(t, bad["output"])
		require.NotContains(t, rec, "failedStep")
		require.Nil(t, rec["error"])
	})

	t.Run("onError goto", func(t *testing.T) {
		id := f.pipeline(`{"name": "goto", "steps": [
			{"id": "bad", "type": "transform", "language": "javascript", "expression": "(() => { throw new Error('nope') })()",
			 "onError": "goto", "onErrorStep": "recover"},
			{"id": "skipped", "type": "transform", "expression": "\"skipped\""},
			{"id": "recover", "type": "transform", "expression": "\"recovered\""}
		]}`)
		env := f.newEnv()
		runID := f.start(env, id, nil)
		require.Equal(t, "recovered", succeeded(t, env))
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusSuccess)
		require.Equal(t, []string{"bad", "recover"}, stepIDs(t, rec))
		require.Contains(t, step(t, rec, "bad")["error"].(map[string]any)["message"], "nope")
	})

	t.Run("default fail", func(t *testing.T) {
		id := f.pipeline(`{"name": "fails", "steps": [
			{"id": "a", "type": "transform", "expression": "1"},
			{"id": "bad", "type": "transform", "language": "javascript", "expression": "(() => { throw new Error('broken data') })()"},
			{"id": "never", "type": "transform", "expression": "2"}
		]}`)
		env := f.newEnv()
		runID := f.start(env, id, nil)
		e := failed(t, env)
		require.Equal(t, "runtime", e.Kind)
		require.Contains(t, env.GetWorkflowError().Error(), `step "bad" failed`)
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusFailed)
		require.Equal(t, []string{"a", "bad"}, stepIDs(t, rec))
		require.Equal(t, "bad", rec["failedStep"])
		recErr := docOf(t, rec["error"])
		require.Equal(t, "runtime", recErr["kind"])
		require.Contains(t, recErr["message"], "broken data")
		require.Nil(t, rec["output"])
	})

	t.Run("step limit", func(t *testing.T) {
		// On a store without the API's indexes: every executed step
		// rewrites the run record with all steps so far, and with the
		// dozen pipelineruns indexes app.New declares SQLite re-parses
		// the growing record for each of them, so this one run would take
		// over a minute. The limit does not depend on indexes. A limit
		// of 250 (past the 200 detailed records) keeps the write volume,
		// quadratic in the steps, a sixteenth of the default's.
		f := newStoreFixture(t)
		f.acts.StepLimit = stepLimit
		id := f.pipeline(`{"name": "spin", "steps": [
			{"id": "spin", "type": "condition", "if": {"input.go": true}, "then": "spin"},
			{"id": "never", "type": "transform", "expression": "1"}
		]}`)
		env := f.newEnv()
		runID := f.start(env, id, map[string]any{"go": true})
		e := failed(t, env)
		require.Equal(t, "step_limit", e.Kind)
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusFailed)
		require.Len(t, steps(t, rec), stepLimit)
		require.Equal(t, "step_limit", docOf(t, rec["error"])["kind"])
		require.NotContains(t, rec, "failedStep", "no one step failed")
	})
}

// TestPipelineSecretsAreRedacted: steps see the customer's secrets, and
// neither the run record nor anything the run's history holds does.
func TestPipelineSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-value"
	f := newPipeFixture(t)
	f.acts.Secrets = fixedSecrets{"api": map[string]any{"token": secret}}
	srv := newReceiver(t, func(_ int, r received) (int, any) {
		if r.Path == "/deny" {
			return http.StatusForbidden, map[string]any{"denied": r.Query}
		}
		return http.StatusOK, map[string]any{"auth": r.Header.Get("Authorization"), "query": r.Query}
	})
	leaky := f.function(`console.log("token is " + input.token);
throw new Error("refused token " + input.token);`)
	id := f.pipeline(fmt.Sprintf(`{"name": "secret", "steps": [
		{"id": "call", "type": "http", "url": "%[1]s/echo?key={{secrets.api.token}}",
		 "headers": {"Authorization": "Bearer {{secrets.api.token}}"}},
		{"id": "leak", "type": "function", "function": %[2]q, "input": {"token": "{{secrets.api.token}}"}, "onError": "continue"},
		{"id": "deny", "type": "http", "url": "%[1]s/deny?key={{secrets.api.token}}", "onError": "continue"},
		{"id": "show", "type": "transform", "expression": "steps.call.output.body"}
	]}`, srv.URL, leaky))
	env := f.newEnv()
	h := newHistoryRecorder()
	h.attach(env)
	runID := f.start(env, id, map[string]any{"x": 1})
	out := succeeded(t, env)
	h.failure(env.GetWorkflowError())

	got := srv.received()
	require.Len(t, got, 2)
	require.Equal(t, "Bearer "+secret, got[0].Header.Get("Authorization"), "the server got the real token")
	require.Equal(t, "key="+secret, got[0].Query)
	require.Equal(t, "key="+secret, got[1].Query)
	require.Equal(t, map[string]any{"auth": "Bearer " + pipeline.Redacted, "query": "key=" + pipeline.Redacted}, docOf(t, out))

	rec, err := f.st.Collection(runs.Runs).Get(f.ctx, runID)
	require.NoError(t, err)
	raw, err := json.Marshal(rec)
	require.NoError(t, err)
	require.NotContains(t, string(raw), secret, "run record")
	require.Contains(t, string(raw), pipeline.Redacted)
	requireFinished(t, rec, runs.StatusSuccess)
	call := step(t, rec, "call")
	require.Equal(t, map[string]any{"Authorization": "Bearer " + pipeline.Redacted}, call["input"].(map[string]any)["headers"])
	leak := step(t, rec, "leak")
	require.Equal(t, []any{"token is " + pipeline.Redacted}, leak["logs"])
	require.Contains(t, leak["error"].(map[string]any)["message"], "refused token "+pipeline.Redacted)
	require.Contains(t, step(t, rec, "deny")["error"].(map[string]any)["message"], "key="+pipeline.Redacted)

	history := h.text()
	require.NotEmpty(t, history)
	require.NotContains(t, history, secret, "workflow history")
	require.Contains(t, history, pipeline.Redacted)
}

// TestPipelineCancel: cancelling a waiting run ends it as a failed run
// marked cancelled.
func TestPipelineCancel(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	id := f.pipeline(`{"name": "slow", "steps": [
		{"id": "first", "type": "transform", "expression": "\"done\""},
		{"id": "sleep", "type": "wait", "duration": "24h"},
		{"id": "never", "type": "transform", "expression": "1"}
	]}`)
	env := f.newEnv()
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	runID := f.start(env, id, nil)
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.True(t, temporal.IsCanceledError(err), "want a cancelled workflow, got %v", err)
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusFailed)
	require.Equal(t, true, rec["cancelled"])
	require.Equal(t, "cancelled", docOf(t, rec["error"])["kind"])
	require.Equal(t, []string{"first", "sleep"}, stepIDs(t, rec))
	require.Equal(t, runs.StatusSuccess, step(t, rec, "first")["status"])
	sleep := step(t, rec, "sleep")
	require.Equal(t, runs.StatusFailed, sleep["status"])
	require.Equal(t, "cancelled", sleep["error"].(map[string]any)["kind"])
}

// recordingStarter stands for Temporal in the launcher: it keeps what
// would be started, and the test runs it in the env.
type recordingStarter struct {
	mu     sync.Mutex
	starts []contract.RunInput
	attrs  []map[string]string
}

func (s *recordingStarter) StartOnce(_ context.Context, _ string, attrs map[string]string, _ string, input any) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts = append(s.starts, input.(contract.RunInput))
	s.attrs = append(s.attrs, attrs)
	return true, nil
}

// TestPipelineRunRecord: a launched run's record, from running to
// success, with every step's input, output and duration; a run keeps the
// version it started with.
func TestPipelineRunRecord(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	id := f.pipeline(`{"name": "record me", "trigger": {"event": "consumers.created"}, "steps": [
		{"id": "name", "type": "transform", "expression": "$uppercase(event.data.first_name)"},
		{"id": "vip", "type": "condition", "if": {"input.vip": true}, "then": "tag", "else": "end"},
		{"id": "tag", "type": "transform", "language": "javascript", "expression": "({tag: 'vip', name: input.steps.name.output})"},
		{"id": "pause", "type": "wait", "duration": "1m"}
	]}`)
	p, err := f.st.Collection(runs.Pipelines).Get(f.ctx, id)
	require.NoError(t, err)
	starter := &recordingStarter{}
	l := &runs.Launcher{Store: f.st, Starter: starter}
	eventID := store.NewID()
	ts := time.Now().UTC().Truncate(time.Millisecond)
	runID, err := l.Launch(f.ctx, runs.Launch{
		RunID: contract.DerivedID("event", eventID, id), Pipeline: p, TriggeredBy: runs.ByEvent,
		Event: contract.Event{ID: eventID, Name: "consumers.created", Timestamp: ts, Data: map[string]any{"first_name": "ada", "vip": true}},
	})
	require.NoError(t, err)
	rec := f.record(runID)
	require.Equal(t, runs.StatusRunning, rec["status"], "the launcher writes the record first")
	require.Len(t, starter.starts, 1)
	require.Equal(t, runs.Attrs(f.customer, id), starter.attrs[0])
	in := starter.starts[0]
	require.Equal(t, contract.RunInput{RunID: runID, Pipeline: id, Version: 1, TriggeredBy: runs.ByEvent,
		Event: contract.Event{ID: eventID, Name: "consumers.created", Timestamp: ts, Data: map[string]any{"first_name": "ada", "vip": true}}}, in)

	env := f.newEnv()
	f.execute(env, in)
	require.Equal(t, map[string]any{"waitedMs": 60000.0}, docOf(t, succeeded(t, env)))

	rec = f.record(runID)
	requireFinished(t, rec, runs.StatusSuccess)
	require.Equal(t, id, rec["pipeline"])
	require.EqualValues(t, 1, rec["pipelineVersion"])
	require.Equal(t, "record me", rec["pipelineName"])
	require.Equal(t, runs.ByEvent, rec["triggeredBy"])
	ev := docOf(t, rec["event"])
	require.Equal(t, eventID, ev["id"])
	require.Equal(t, "consumers.created", ev["name"])
	require.Equal(t, map[string]any{"waitedMs": 60000.0}, docOf(t, rec["output"]))
	require.NotNil(t, rec["startedAt"])
	require.GreaterOrEqual(t, jsonOf(t, rec["totalDuration"]).(float64), 0.0)
	require.Nil(t, rec["error"])
	require.NotContains(t, rec, "cancelled")
	require.Equal(t, []string{"name", "vip", "tag", "pause"}, stepIDs(t, rec))
	for _, s := range steps(t, rec) {
		require.Equal(t, runs.StatusSuccess, s["status"], "step %s", s["id"])
		require.NotNil(t, s["input"], "step %s input", s["id"])
		require.NotNil(t, s["output"], "step %s output", s["id"])
		require.IsType(t, 0.0, s["duration"], "step %s duration", s["id"])
		require.GreaterOrEqual(t, s["duration"].(float64), 0.0)
		require.NotContains(t, s, "error")
	}
	require.Equal(t, "ADA", step(t, rec, "name")["output"])
	require.Equal(t, map[string]any{"tag": "vip", "name": "ADA"}, step(t, rec, "tag")["output"])
	require.Equal(t, 60000.0, step(t, rec, "pause")["duration"])

	// Version 2 changes the first step; a run of version 1 keeps the
	// frozen steps, version 0 means the current one.
	v2 := `{"name": "record me", "steps": [{"id": "name", "type": "transform", "expression": "\"v2\""}]}`
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(v2), &doc))
	require.NoError(t, f.st.Collection(runs.Versions).Insert(f.ctx, store.Doc{
		"_id": runs.VersionID(id, 2), "pipeline": id, "version": int64(2), "definition": doc}))
	_, err = f.st.Collection(runs.Pipelines).Update(f.ctx, query.ID(id), store.Update{Set: store.Doc{"version": int64(2), "steps": doc["steps"]}})
	require.NoError(t, err)
	for _, c := range []struct {
		version     int
		wantVersion int
		want        any
	}{{1, 1, map[string]any{"waitedMs": 60000.0}}, {0, 2, "v2"}} {
		env := f.newEnv()
		run := store.NewID()
		f.execute(env, contract.RunInput{RunID: run, Pipeline: id, Version: c.version, TriggeredBy: runs.ByManual,
			Event: contract.Event{Name: "manual", Timestamp: ts, Data: map[string]any{"first_name": "bo", "vip": true}}})
		require.Equal(t, c.want, jsonOf(t, succeeded(t, env)), "version %d", c.version)
		rec := f.record(run)
		requireFinished(t, rec, runs.StatusSuccess)
		require.EqualValues(t, c.wantVersion, rec["pipelineVersion"])
	}
}

// TestPipelineMissingVersion: a launched run whose version is gone fails
// for good, and its record says why.
func TestPipelineMissingVersion(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	pid := store.NewID()
	starter := &recordingStarter{}
	l := &runs.Launcher{Store: f.st, Starter: starter}
	runID, err := l.Launch(f.ctx, runs.Launch{Pipeline: store.Doc{"_id": pid, "name": "gone", "version": int64(3)}, TriggeredBy: runs.ByManual,
		Event: contract.Event{Name: "manual", Timestamp: time.Now().UTC(), Data: map[string]any{}}})
	require.NoError(t, err)
	env := f.newEnv()
	f.execute(env, starter.starts[0])
	e := failed(t, env)
	require.Contains(t, e.Message, "version 3 of pipeline "+pid+" does not exist")
	rec := f.record(runID)
	requireFinished(t, rec, runs.StatusFailed)
	require.Empty(t, steps(t, rec))
	require.Contains(t, docOf(t, rec["error"])["message"], "does not exist")
}

// TestRecordHistoriesPipeline runs a pipeline (transform, condition, db,
// http, subPipeline, wait) on the real servers, through the API, and
// writes the histories of the run and of its child run to testdata, which
// TestReplayRecordedHistories replays. Like TestRecordHistories, re-record
// (PLATFORM_RECORD_HISTORY=1 go test -run TestRecordHistories) only for a
// change of PipelineRun that is meant to be incompatible (and versioned).
func TestRecordHistoriesPipeline(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/pipeline_*.json")
	}
	srv := newReceiver(t, func(_ int, r received) (int, any) {
		return http.StatusOK, map[string]any{"ok": true, "auth": r.Header.Get("Authorization")}
	})
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.OutboundAllow = []string{"127.0.0.1"}
	}})
	tok := p.Token("automation.*", "crm.*", "config.*")
	r := p.Do("POST", "/config/credentials", tok, map[string]any{"name": "api", "type": "api-key", "credentials": map[string]any{"token": recordedSecret}})
	require.Equal(t, 201, r.Status, string(r.Body))
	r = p.Do("POST", "/automation/pipelines", tok, map[string]any{"name": "replay child", "steps": []any{
		map[string]any{"id": "greet", "type": "transform", "expression": `"Hello " & input.name`},
	}})
	require.Equal(t, 201, r.Status, string(r.Body))
	child := r.Payload()["_id"].(string)
	r = p.Do("POST", "/automation/pipelines", tok, map[string]any{"name": "replay", "steps": []any{
		map[string]any{"id": "name", "type": "transform", "expression": "$uppercase(event.data.name)"},
		map[string]any{"id": "vip", "type": "condition", "if": map[string]any{"input.vip": true}, "then": "task", "else": "end"},
		map[string]any{"id": "task", "type": "db", "collection": "tasks", "op": "create",
			"data": map[string]any{"title": "Call {{steps.name.output}}", "priority": "high"}},
		map[string]any{"id": "notify", "type": "http", "method": "POST", "url": srv.URL + "/done",
			"headers": map[string]any{"Authorization": "Bearer {{secrets.api.token}}"}, "body": map[string]any{"task": "{{steps.task.output._id}}"}},
		map[string]any{"id": "child", "type": "subPipeline", "pipeline": child, "input": map[string]any{"name": "{{steps.name.output}}"}},
		map[string]any{"id": "pause", "type": "wait", "duration": "1s"},
	}})
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Payload()["_id"].(string)
	r = p.Do("POST", "/automation/pipelines/"+id+"/actions/run", tok, map[string]any{"input": map[string]any{"name": "ada", "vip": true}})
	require.Equal(t, 200, r.Status, string(r.Body))
	runID := docOf(t, r.Payload()["run"])["_id"].(string)

	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	var res contract.RunResult
	require.NoError(t, p.Temporal.GetWorkflow(ctx, runID, "").Get(ctx, &res))
	require.Equal(t, runs.StatusSuccess, res.Status)
	rec, err := p.Store.Collection(runs.Runs).Get(p.Ctx(), runID)
	require.NoError(t, err)
	require.Equal(t, []string{"name", "vip", "task", "notify", "child", "pause"}, stepIDs(t, rec))
	got := srv.received()
	require.Len(t, got, 1)
	require.Equal(t, "Bearer "+recordedSecret, got[0].Header.Get("Authorization"))
	raw, err := json.Marshal(rec)
	require.NoError(t, err)
	require.NotContains(t, string(raw), recordedSecret)

	writeHistory(ctx, t, p.Temporal, runID, filepath.Join("testdata", "pipeline_run.json"))
	writeHistory(ctx, t, p.Temporal, contract.DerivedID("subpipeline", runID, "child", "4"), filepath.Join("testdata", "pipeline_child.json"))
}

// recordedSecret is the credential value of the recorded pipeline run.
// stepLimit is the step-limit test's lowered limit (pipeFixture.acts).
const stepLimit = 250

const recordedSecret = "s3cr3t-recorded-value"

// TestRecordedPipelineHistoryHidesSecrets: the history of a real run
// whose http step sent a secret (and got it echoed back) holds the
// redaction marker, never the value.
func TestRecordedPipelineHistoryHidesSecrets(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "pipeline_run.json"))
	require.NoError(t, err)
	var history any
	require.NoError(t, json.Unmarshal(raw, &history))
	text := historyText(t, history)
	require.NotContains(t, text, recordedSecret)
	require.Contains(t, text, "Bearer "+pipeline.Redacted)
}

// historyText is every string of a history as JSON, payloads decoded
// (their data is base64).
func historyText(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if data, ok := x["data"].(string); ok && x["metadata"] != nil {
				dec, err := base64.StdEncoding.DecodeString(data)
				require.NoError(t, err)
				b.Write(append(dec, '\n'))
			}
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}
