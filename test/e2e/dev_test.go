package e2e

import (
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDevStartsSeedsAndKeepsDataAcrossRestart: the one-command platform comes
// up ready with the Temporal UI, seeds once, and keeps seed and data on restart.
func TestDevStartsSeedsAndKeepsDataAcrossRestart(t *testing.T) {
	t.Parallel()
	d := newDev(t)
	took := d.start()
	t.Logf("platform dev ready in %s", took)
	banner := strings.Join(d.lines(), "\n")
	require.Contains(t, banner, "client_secret oas_", "first start shows the app secret once")
	res, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", d.ports["ui"]))
	require.NoError(t, err, "Temporal UI answers")
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)

	tok := d.token("crm.*")
	status, env, err := d.do("POST", "/crm/consumers", tok, map[string]any{"email": "keep@example.com"})
	require.NoError(t, err)
	require.Equal(t, 201, status)
	id := payloadID(env)
	// Every answer is the envelope, net/http's own refusal of a URL past 1 MiB included.
	status, env, err = d.do("GET", "/crm/consumers?filter="+strings.Repeat("x", 2<<20), tok, nil)
	require.NoError(t, err, "a JSON answer")
	require.Equal(t, 431, status)
	require.Equal(t, true, env["meta"].(map[string]any)["error"])

	require.NoError(t, d.signal(syscall.SIGTERM), "SIGTERM exits cleanly")
	d.start()
	require.NotContains(t, strings.Join(d.lines(), "\n"), "oas_", "the seed runs once: the secret is not shown again")
	status, env, err = d.do("GET", "/crm/consumers/"+id, d.token("crm.*"), nil)
	require.NoError(t, err)
	require.Equal(t, 200, status)
	require.Equal(t, "keep@example.com", env["payload"].(map[string]any)["email"])
	out := d.admin("check")
	require.Contains(t, out, "ok:", "the self-check workflow runs through the worker")
}

// TestSigkillLosesNoAcknowledgedWrite kills the process while clients write
// and checks every acknowledged record is there after a restart.
func TestSigkillLosesNoAcknowledgedWrite(t *testing.T) {
	t.Parallel()
	d := newDev(t)
	d.start()
	tok := d.token("crm.*")
	var acked sync.Map
	var n atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				status, env, err := d.do("POST", "/crm/consumers", tok, map[string]any{"email": fmt.Sprintf("w%d-%d@example.com", w, i)})
				if err != nil {
					return // the process is gone
				}
				if status == 201 {
					acked.Store(payloadID(env), true)
					n.Add(1)
				}
			}
		}(w)
	}
	for n.Load() < 40 {
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, d.cmd.Process.Signal(syscall.SIGKILL))
	<-d.exited
	close(stop)
	wg.Wait()
	t.Logf("%d writes acknowledged before SIGKILL", n.Load())

	d.start()
	tok = d.token("crm.*")
	missing := 0
	acked.Range(func(k, _ any) bool {
		status, _, err := d.do("GET", "/crm/consumers/"+k.(string), tok, nil)
		if err != nil || status != 200 {
			missing++
		}
		return true
	})
	require.Zero(t, missing, "acknowledged writes lost after SIGKILL")
}

// TestBadSettingStopsWithOneLine: a wrong value names the setting, no stack trace.
func TestBadSettingStopsWithOneLine(t *testing.T) {
	t.Parallel()
	d := newDev(t)
	for _, tc := range []struct{ env, want string }{
		{"PLATFORM_HTTP_ADDR=nonsense", "PLATFORM_HTTP_ADDR"},
		{"PLATFORM_RATE_LIMIT=-3", "PLATFORM_RATE_LIMIT"},
		{"MONGODB_URI=http://x", "MONGODB_URI"},
		{"PLATFORM_GATEWAY_URL=ftp:/x", "PLATFORM_GATEWAY_URL"},
	} {
		cmd := exec.Command(d.bin, "dev")
		cmd.Env = append(d.env(), tc.env)
		out, err := cmd.CombinedOutput()
		require.Error(t, err)
		require.Equal(t, 2, cmd.ProcessState.ExitCode(), tc.env)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		require.Len(t, lines, 1, "one line for %s: %s", tc.env, out)
		require.Contains(t, lines[0], tc.want)
		require.NotContains(t, string(out), "goroutine")
	}
}
