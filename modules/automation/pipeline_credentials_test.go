package automation_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

const credAToken = "tok-credA-0123456789"

// sendSecretPipeline posts credA's token to rcv and writes it into a task:
// the probe's exfiltration paths.
func sendSecretPipeline(rcv *receiver) map[string]any {
	return newPipeline("exfiltrate",
		map[string]any{"id": "send", "type": "http", "method": "POST", "url": rcv.url("/steal"), "body": map[string]any{"t": "{{secrets.credA.token}}"}},
		taskStep("store", "{{secrets.credA.token}}"),
	)
}

func createCredA(t *testing.T, p *testenv.Platform) string {
	t.Helper()
	r := p.Do("POST", "/config/credentials", p.Token("config.*"), map[string]any{"name": "credA", "type": "api-key", "credentials": map[string]any{"token": credAToken}})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	return r.Payload()["_id"].(string)
}

// TestPipelineWithoutCredentialRightIsRefused reproduces the probe: a
// token with pipeline rights (and the task rights its db step needs) but
// no right on credentials can neither save a pipeline that reads one nor
// start a run of one someone else saved.
func TestPipelineWithoutCredentialRightIsRefused(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	createCredA(t, p)
	rcv := newReceiver(t)
	narrow := p.Token("automation.pipelines.*", "automation.pipelineruns.view", "crm.*")

	r := p.Do("POST", "/automation/pipelines", narrow, sendSecretPipeline(rcv))
	require.Equal(t, 422, r.Status, "%s", r.Body)
	for _, field := range []string{`"field":"steps[0]"`, `"field":"steps[1]"`, `credA`, `config.credentials.use`} {
		require.Contains(t, string(r.Body), field)
	}

	author := p.Token("automation.*", "crm.*", "config.credentials.use")
	r = p.Do("POST", "/automation/pipelines", author, sendSecretPipeline(rcv))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	run := p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", narrow, nil)
	require.Equal(t, 403, run.Status, "%s", run.Body)
	require.Contains(t, string(run.Body), "credA")
	require.Empty(t, rcv.requests("/steal"))
}

// TestPipelineWithUseRightReadsAndAudits: the use right (not decrypt)
// suffices; each run that reads a credential leaves exactly one audit
// record for it (both steps read it; a second run adds its own), naming
// the pipeline as actor, the run, the credential and the step that read
// it first. Decrypt suffices too.
func TestPipelineWithUseRightReadsAndAudits(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	createCredA(t, p)
	rcv := newReceiver(t)
	tok := p.Token("automation.*", "crm.*", "config.credentials.use")
	r := p.Do("POST", "/automation/pipelines", tok, sendSecretPipeline(rcv))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	pid := r.Payload()["_id"].(string)
	runs := map[any]bool{}
	for range 2 {
		run := waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelines/"+pid+"/actions/run", tok, nil)))
		require.Equal(t, "success", run["status"], "%v", run)
		runs[run["_id"]] = true
	}
	require.Contains(t, string(rcv.requests("/steal")[0].Body), credAToken)

	recs := p.Do("GET", "/audit/auditrecords?action=automation.pipelines.secret_read", p.Token("audit.*"), nil).List()
	require.Len(t, recs, 2, "one record per run and credential, although two steps of each run read it")
	for _, rec := range recs {
		d := rec["details"].(map[string]any)
		require.Equal(t, pid, rec["actor"])
		require.Equal(t, "pipeline", rec["actorType"])
		require.Equal(t, "credA", rec["target"])
		require.Equal(t, pid, d["pipeline"])
		require.True(t, runs[d["run"]], "the run that read it: %v", d["run"])
		delete(runs, d["run"])
		require.Equal(t, "send", d["step"], "the step that read it first")
		require.NotContains(t, fmt.Sprint(rec), credAToken)
	}

	decrypter := p.Token("automation.*", "crm.*", "config.credentials.decrypt")
	require.Equal(t, 201, p.Do("POST", "/automation/pipelines", decrypter, sendSecretPipeline(rcv)).Status)
}

// TestRunRechecksTheCredentialGrant: a run starts only while the
// credential its version was granted still stands; deleted, it fails the
// run with a reason and the step never runs.
func TestRunRechecksTheCredentialGrant(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	cred := createCredA(t, p)
	rcv := newReceiver(t)
	tok := p.Token("automation.*", "crm.*", "config.*", "config.credentials.delete")
	r := p.Do("POST", "/automation/pipelines", tok, sendSecretPipeline(rcv))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	require.Equal(t, 200, p.Do("DELETE", "/config/credentials/"+cred, tok, nil).Status)
	createCredA(t, p) // same name, another credential: not what the author was granted

	run := waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, nil)))
	require.Equal(t, "failed", run["status"], "%v", run)
	require.Contains(t, run["error"].(map[string]any)["message"], `credential "credA" was deleted`)
	require.Empty(t, rcv.requests("/steal"))
}

// TestShortSecretsRedactedByStructure: a credential with one- and
// two-character values leaves error texts intact, while the step's
// recorded input still shows [redacted] where the values were rendered.
func TestShortSecretsRedactedByStructure(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	tok := p.Token("automation.*", "config.*")
	r := p.Do("POST", "/config/credentials", tok, map[string]any{"name": "short", "type": "http-basic", "credentials": map[string]any{"username": "u", "password": "pw"}})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	rcv := newReceiver(t)
	rcv.status.Store(403)
	r = p.Do("POST", "/automation/pipelines", tok, newPipeline("short secrets", map[string]any{
		"id": "call", "type": "http", "url": rcv.url("/deny") + "?user={{secrets.short.username}}",
		"headers": map[string]any{"Authorization": "Basic {{secrets.short.password}}"},
	}))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	run := waitRun(t, p, tok, runOf(t, p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, nil)))
	require.Equal(t, "failed", run["status"], "%v", run)
	msg := run["error"].(map[string]any)["message"].(string)
	require.Contains(t, msg, rcv.url("/deny"), "the URL reads as it is")
	require.Contains(t, msg, "user=[redacted]")
	require.Contains(t, msg, "answered 403")
	require.NotContains(t, msg, "user=u")

	input := run["steps"].([]any)[0].(map[string]any)["input"].(map[string]any)["request"].(map[string]any)
	require.Equal(t, rcv.url("/deny")+"?user=[redacted]", input["url"])
	require.Equal(t, map[string]any{"Authorization": "Basic [redacted]"}, input["headers"])
	got := rcv.requests("/deny")
	require.Equal(t, "Basic pw", got[0].Header.Get("Authorization"), "the call itself got the values")
}
