package automation_test

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/testenv"
)

func TestFunctionsDeployAndInvoke(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	p.CheckOpenAPI("automation")
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/functions", tok, map[string]any{"name": "sum", "code": "console.log('adding', input.a, input.b)\nreturn { sum: input.a + input.b }"})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	id := r.Payload()["_id"].(string)
	require.EqualValues(t, 0, r.Payload()["deployedVersion"])
	require.EqualValues(t, 1000, r.Payload()["timeoutMs"])

	inv := p.Do("POST", "/automation/functions/"+id+"/actions/invoke", tok, map[string]any{"input": map[string]any{"a": 1, "b": 2}})
	require.Equal(t, 409, inv.Status, "not deployed yet: %s", inv.Body)

	d := p.Do("POST", "/automation/functions/"+id+"/actions/deploy", tok, nil)
	require.Equal(t, 200, d.Status, "%s", d.Body)
	require.EqualValues(t, 1, d.Payload()["deployedVersion"])
	require.Equal(t, false, d.Payload()["undeployedChanges"])

	inv = p.Do("POST", "/automation/functions/"+id+"/actions/invoke", tok, map[string]any{"input": map[string]any{"a": 1, "b": 2}})
	require.Equal(t, 200, inv.Status, "%s", inv.Body)
	out := inv.Payload()
	require.Equal(t, map[string]any{"sum": 3.0}, out["output"])
	require.Equal(t, []any{"adding 1 2"}, out["logs"])
	require.Equal(t, math.Trunc(out["durationMs"].(float64)), out["durationMs"], "whole milliseconds")

	// A change is not live until deployed.
	r = p.Do("PATCH", "/automation/functions/"+id, tok, map[string]any{"code": "return { sum: 'changed' }"})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	require.Equal(t, true, r.Payload()["undeployedChanges"])
	inv = p.Do("POST", "/automation/functions/"+id+"/actions/invoke", tok, map[string]any{"input": map[string]any{"a": 2, "b": 2}})
	require.Equal(t, map[string]any{"sum": 4.0}, inv.Payload()["output"], "invoke runs the deployed version")

	// A syntax error is a 422 with line and column; the deployed version stays.
	r = p.Do("PATCH", "/automation/functions/"+id, tok, map[string]any{"code": "const x = 1;\nreturn {{ x }"})
	require.Equal(t, 200, r.Status)
	d = p.Do("POST", "/automation/functions/"+id+"/actions/deploy", tok, nil)
	require.Equal(t, 422, d.Status, "%s", d.Body)
	e := d.Meta()["errors"].([]any)[0].(map[string]any)
	require.Equal(t, "validation.syntax", e["code"])
	require.Equal(t, "code", e["field"])
	require.EqualValues(t, 2, e["line"])
	require.NotZero(t, e["column"])
	inv = p.Do("POST", "/automation/functions/"+id+"/actions/invoke", tok, map[string]any{"input": map[string]any{"a": 5, "b": 5}})
	require.Equal(t, map[string]any{"sum": 10.0}, inv.Payload()["output"])

	// A runtime failure of user code is part of the answer, with its logs.
	r = p.Do("PATCH", "/automation/functions/"+id, tok, map[string]any{"code": "console.log('about to fail'); throw new Error('boom')", "timeoutMs": 200})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	require.Equal(t, 200, p.Do("POST", "/automation/functions/"+id+"/actions/deploy", tok, nil).Status)
	inv = p.Do("POST", "/automation/functions/"+id+"/actions/invoke", tok, map[string]any{"input": nil})
	require.Equal(t, 200, inv.Status, "%s", inv.Body)
	require.Equal(t, "runtime", inv.Payload()["error"].(map[string]any)["kind"])
	require.Contains(t, inv.Payload()["error"].(map[string]any)["message"], "boom")
	require.Equal(t, []any{"about to fail"}, inv.Payload()["logs"])

	// Hostile code ends as a clean error within its limit.
	r = p.Do("PATCH", "/automation/functions/"+id, tok, map[string]any{"code": "while (true) {}"})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	require.Equal(t, 200, p.Do("POST", "/automation/functions/"+id+"/actions/deploy", tok, nil).Status)
	inv = p.Do("POST", "/automation/functions/"+id+"/actions/invoke", tok, map[string]any{})
	require.Equal(t, "timeout", inv.Payload()["error"].(map[string]any)["kind"], "%s", inv.Body)

	for _, c := range []struct{ body map[string]any }{{map[string]any{"timeoutMs": 0}}, {map[string]any{"timeoutMs": 60001}}} {
		require.Equal(t, 422, p.Do("PATCH", "/automation/functions/"+id, tok, c.body).Status)
	}
	require.Equal(t, 403, p.Do("POST", "/automation/functions/"+id+"/actions/deploy", p.Token("automation.functions.view", "automation.functions.edit"), nil).Status)
	require.Equal(t, 403, p.Do("POST", "/automation/functions/"+id+"/actions/invoke", p.Token("automation.functions.view"), map[string]any{}).Status)
	other, user := p.OtherCustomer("rival")
	require.Equal(t, 404, p.Do("POST", "/automation/functions/"+id+"/actions/invoke", p.TokenFor(other.ID, user.ID, "automation.*"), map[string]any{}).Status)
}

// Two invokes of an endless loop on a sandbox of one child: one runs
// until its limit, the other gets no child within the queue time-out and
// answers 503 with Retry-After instead of waiting its turn.
func TestFunctionInvokeWhileTheSandboxIsBusy(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Configure: func(c *settings.Config) {
		c.SandboxSize, c.SandboxQueueTimeout = 1, 500*time.Millisecond
	}})
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/functions", tok, map[string]any{"name": "spin", "code": "while (true) {}", "timeoutMs": 5000})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	id := r.Payload()["_id"].(string)
	require.Equal(t, 200, p.Do("POST", "/automation/functions/"+id+"/actions/deploy", tok, nil).Status)

	answers := make([]*testenv.Resp, 2)
	errs := make([]error, len(answers))
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			answers[i], errs[i] = p.TryDo("POST", "/automation/functions/"+id+"/actions/invoke", tok, map[string]any{})
		})
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "invoke %d", i)
	}
	if answers[0].Status == 503 {
		answers[0], answers[1] = answers[1], answers[0]
	}
	ran, refused := answers[0], answers[1]
	require.Equal(t, 200, ran.Status, "%s", ran.Body)
	require.Equal(t, "timeout", ran.Payload()["error"].(map[string]any)["kind"])
	require.Equal(t, 503, refused.Status, "%s", refused.Body)
	require.Equal(t, "1", refused.Header.Get("Retry-After"))
	e := refused.Meta()["errors"].([]any)[0].(map[string]any)
	require.Equal(t, "dependency.unavailable", e["code"])
	require.Contains(t, e["message"], "busy")
}
