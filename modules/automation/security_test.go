package automation_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/obs"
	"platform/test/testenv"
)

// TestSecretNeverLogged captures every log line of the API, the worker and
// the Temporal client at debug level while webhooks with secrets are
// created, rejected, delivered, fail and are refused, and finds no secret.
func TestSecretNeverLogged(t *testing.T) {
	t.Parallel()
	logs := &testenv.SyncBuffer{}
	p := platformWithWorker(t, testenv.Options{Logger: obs.NewLogger(logs, "debug")})
	rc := newReceiver(t)
	tok := p.Token("automation.*", "crm.*")
	failing := newReceiver(t)
	failing.status.Store(http.StatusInternalServerError)
	shortSecret := "short-" + strings.Repeat("q", 20)
	require.Equal(t, 422, p.Do("POST", "/automation/webhooks", tok, map[string]any{
		"name": "x", "url": rc.url("/x"), "events": []string{"*"}, "secret": shortSecret}).Status)
	createHook(t, p, tok, rc, hookSpec{path: "/ok", events: []string{"consumers.created"}, secret: secret, active: true})
	createHook(t, p, tok, failing, hookSpec{path: "/fail", events: []string{"consumers.created"}, secret: secret + "-2", active: true})
	r := p.Do("POST", "/automation/webhooks", tok, map[string]any{"name": "private", "url": "http://10.0.0.1/hook",
		"events": []string{"consumers.created"}, "secret": secret + "-3", "active": true})
	require.Equal(t, 201, r.Status)
	privateID := r.Payload()["_id"].(string)
	require.Equal(t, 201, p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "log@example.com"}).Status)

	rc.waitFor(t, "/ok", 1, 30*time.Second)
	failing.waitFor(t, "/fail", 1, 30*time.Second)
	// The guard refuses the private destination (the reason is recorded).
	require.Eventually(t, func() bool {
		list := p.Do("GET", "/automation/webhooks/"+privateID+"/deliveries", tok, nil).List()
		return len(list) == 1 && strings.Contains(list[0]["error"].(string), "10.0.0.1")
	}, 30*time.Second, 100*time.Millisecond)
	time.Sleep(500 * time.Millisecond)

	out := logs.String()
	require.NotEmpty(t, out)
	require.Contains(t, out, "webhook attempt failed", "failed attempts are logged (so the capture works)")
	for _, s := range []string{secret, secret + "-2", secret + "-3", shortSecret} {
		require.NotContains(t, out, s)
	}
}
