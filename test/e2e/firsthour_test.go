package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDevFirstHour walks what a newcomer trips over in the first hour
// (issue 30), around one running `platform dev`, grouped because every
// start of the binary costs seconds:
//   - a second dev on the same data directory stops at once naming the
//     first one's process id, before it starts anything;
//   - an address in use names its setting (HTTP, store, both Temporal ports);
//   - a damaged store or temporal.db stops at once, pointing at the backup;
//   - the CLI's help is per command and exits 0, an error is one line,
//     an unknown scope is refused, and admin commands work beside dev;
//   - a webhook to a loopback receiver is saved without a warning (dev
//     allows loopback), one to a private address with one;
//   - a lost master.key is refused, not replaced, until the loss is
//     accepted explicitly.
func TestDevFirstHour(t *testing.T) {
	t.Parallel()
	d := newDev(t)
	d.start()
	require.Contains(t, strings.Join(d.lines(), "\n"), "loopback addresses", "the banner says dev allows loopback")

	t.Run("one process per data directory", func(t *testing.T) {
		second := newDev(t)
		second.data = d.data
		code, stderr := runOnce(t, second.bin, second.env(), "dev")
		require.Equal(t, 1, code, stderr)
		require.Contains(t, stderr, fmt.Sprintf("data directory %s is in use by process %d", d.data, d.cmd.Process.Pid))
		require.Contains(t, stderr, "PLATFORM_DATA")
		require.NotContains(t, stderr, "retrying", "refused before anything started")
	})

	t.Run("an address in use names its setting", func(t *testing.T) {
		for _, tc := range []struct {
			setting string
			env     []string
		}{
			{"PLATFORM_HTTP_ADDR", []string{fmt.Sprintf("PLATFORM_HTTP_ADDR=127.0.0.1:%d", d.ports["http"])}},
			{"PLATFORM_TEMPORAL_PORT", []string{fmt.Sprintf("PLATFORM_TEMPORAL_PORT=%d", d.ports["temporal"])}},
			{"PLATFORM_TEMPORAL_UI_PORT", []string{fmt.Sprintf("PLATFORM_TEMPORAL_UI_PORT=%d", d.ports["ui"])}},
			{"PLATFORM_STORE_ADDR", []string{fmt.Sprintf("PLATFORM_STORE_ADDR=127.0.0.1:%d", d.ports["http"]), "PLATFORM_EMBEDDED_STORE=ferretdb"}},
		} {
			other := newDev(t)
			other.extra = tc.env
			code, stderr := runOnce(t, other.bin, other.env(), "dev")
			require.Equal(t, 1, code, stderr)
			last := lastLine(stderr)
			require.Contains(t, last, "already in use", tc.setting)
			require.Contains(t, last, tc.setting)
		}
	})

	t.Run("a damaged database stops at once", func(t *testing.T) {
		for _, file := range []string{filepath.Join("store", "platform.db"), filepath.Join("temporal", "temporal.db")} {
			broken := newDev(t)
			path := filepath.Join(broken.data, file)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o750))
			require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not a database ", 600)), 0o600))
			code, stderr := runOnce(t, broken.bin, broken.env(), "dev") // PLATFORM_STARTUP_TIMEOUT is 2m: a retry would outlast runOnce
			require.Equal(t, 1, code, stderr)
			for _, want := range []string{path, "is damaged", "platform backup", "docs/backup.md"} {
				require.Contains(t, stderr, want, file)
			}
			require.NotContains(t, stderr, "retrying", file)
		}
	})

	t.Run("the CLI", func(t *testing.T) {
		code, out := runOnce(t, d.bin, d.env(), "token", "-h")
		require.Equal(t, 0, code, out)
		require.Contains(t, out, "-scope")
		require.NotContains(t, out, "PLATFORM_RATE_LIMIT", "the settings only on request")
		require.Less(t, strings.Count(out, "\n"), 25, out)
		code, out = runOnce(t, d.bin, d.env(), "token", "--help-settings")
		require.Equal(t, 0, code)
		require.Contains(t, out, "PLATFORM_RATE_LIMIT")
		code, out = runOnce(t, d.bin, d.env(), "aggregation", "-h")
		require.Equal(t, 0, code, out)
		require.Contains(t, out, "-name")
		for _, args := range [][]string{
			{"token", "--bogus"},
			{"token", "--customer", "demo", "--scope", "nosuch.*"},
			{"nosuch"},
		} {
			code, out = runOnce(t, d.bin, d.env(), args...)
			require.Equal(t, 2, code, "%v: %s", args, out)
			require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 1, "one line for %v: %s", args, out)
		}
		require.Contains(t, out, "platform -h", "the error says where the help is")
		require.NotEmpty(t, d.token("crm.*"), "admin commands work while dev holds the data directory")
	})

	tok := d.token("automation.*")
	t.Run("saved URLs the guard refuses warn", func(t *testing.T) {
		local := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		defer local.Close()
		status, env, err := d.do("POST", "/automation/webhooks", tok, map[string]any{"name": "local", "url": local.URL + "/hook",
			"events": []string{"consumers.created"}, "secret": strings.Repeat("s", 32)})
		require.NoError(t, err)
		require.Equal(t, 201, status, "%v", env)
		require.Nil(t, env["meta"].(map[string]any)["warnings"], "dev allows loopback")
		status, env, err = d.do("POST", "/automation/webhooks", tok, map[string]any{"name": "private", "url": "http://10.255.0.1/hook",
			"events": []string{"consumers.created"}})
		require.NoError(t, err)
		require.Equal(t, 201, status, "%v", env)
		warnings, _ := env["meta"].(map[string]any)["warnings"].([]any)
		require.Len(t, warnings, 1, "%v", env)
		require.Contains(t, warnings[0].(map[string]any)["message"], "PLATFORM_OUTBOUND_ALLOW")
	})

	t.Run("a lost master key is refused, not replaced", func(t *testing.T) {
		require.NoError(t, d.signal(syscall.SIGTERM))
		keyFile := filepath.Join(d.data, "master.key")
		require.NoError(t, os.Remove(keyFile)) // the webhook secret above is sealed under it
		code, stderr := runOnce(t, d.bin, d.env(), "dev")
		require.Equal(t, 1, code, stderr)
		for _, want := range []string{keyFile + " is missing", "platform backup", "--accept-lost-master-key"} {
			require.Contains(t, stderr, want)
		}
		_, err := os.Stat(keyFile)
		require.True(t, os.IsNotExist(err), "the refused start wrote no new key")

		d.extra = []string{"PLATFORM_ACCEPT_LOST_MASTER_KEY=true"}
		d.start()
		require.Contains(t, d.stderr.String(), "lostKeyId", "the accepted loss is logged")
		_, err = os.Stat(keyFile)
		require.NoError(t, err, "the new key is kept")
	})
}

// runOnce runs the binary to its end (at most a minute) and answers its
// exit code and its standard error, or its standard output when that is
// where it wrote (help).
func runOnce(t *testing.T, bin string, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "platform %v still ran after a minute:\n%s", args, stderr.String())
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	if stderr.Len() == 0 {
		return cmd.ProcessState.ExitCode(), stdout.String()
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
