// Package e2e runs the real `platform` binary as a user would: start, stop,
// kill, restart, and check what survives.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"platform/test/testenv"
)

// devProcess is one `platform dev` run on its own data directory and ports.
type devProcess struct {
	t       *testing.T
	bin     string
	data    string
	ports   map[string]int
	cmd     *exec.Cmd
	stdout  *testenv.SyncBuffer // written by the process while tests read it
	stderr  *testenv.SyncBuffer
	exited  chan struct{}
	exitErr error
	extra   []string // further environment lines (the last value of a variable wins)
}

func newDev(t *testing.T) *devProcess {
	t.Helper()
	bin, err := testenv.PlatformBinary()
	if err != nil {
		t.Fatal(err)
	}
	d := &devProcess{t: t, bin: bin, data: t.TempDir(), ports: map[string]int{}}
	for _, name := range []string{"http", "store", "temporal", "ui"} {
		d.ports[name] = freePort(t)
	}
	return d
}

func (d *devProcess) baseURL() string { return fmt.Sprintf("http://127.0.0.1:%d", d.ports["http"]) }

func (d *devProcess) env() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MONGODB_URI=") && !strings.HasPrefix(kv, "TEMPORAL_ADDRESS=") {
			env = append(env, kv)
		}
	}
	return append(append(env,
		"PLATFORM_DATA="+d.data,
		fmt.Sprintf("PLATFORM_HTTP_ADDR=127.0.0.1:%d", d.ports["http"]),
		fmt.Sprintf("PLATFORM_STORE_ADDR=127.0.0.1:%d", d.ports["store"]),
		fmt.Sprintf("PLATFORM_TEMPORAL_PORT=%d", d.ports["temporal"]),
		fmt.Sprintf("PLATFORM_TEMPORAL_UI_PORT=%d", d.ports["ui"]),
		"PLATFORM_GATEWAY_URL="+d.baseURL(),
		"PLATFORM_ADMIN_PASSWORD=e2e-password",
		"PLATFORM_LOG_LEVEL=warn",
	), d.extra...)
}

// start runs `platform dev` and waits for /readyz.
func (d *devProcess) start() time.Duration {
	d.t.Helper()
	begin := time.Now()
	d.cmd = exec.Command(d.bin, "dev")
	d.cmd.Env = d.env()
	d.stdout, d.stderr = &testenv.SyncBuffer{}, &testenv.SyncBuffer{}
	d.cmd.Stdout, d.cmd.Stderr = d.stdout, d.stderr
	if err := d.cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	d.exited = make(chan struct{})
	go func() { d.exitErr = d.cmd.Wait(); close(d.exited) }()
	d.t.Cleanup(func() { d.kill() })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-d.exited:
			d.t.Fatalf("platform dev exited: %v\n%s", d.exitErr, d.stderr.String())
		default:
		}
		if res, err := http.Get(d.baseURL() + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return time.Since(begin)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	d.t.Fatalf("platform dev not ready within 60 s\n%s", d.stderr.String())
	return 0
}

func (d *devProcess) kill() {
	if d.cmd != nil && d.cmd.Process != nil {
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
}

// signal sends sig and waits for the exit.
func (d *devProcess) signal(sig syscall.Signal) error {
	_ = d.cmd.Process.Signal(sig)
	select {
	case <-d.exited:
		return d.exitErr
	case <-time.After(60 * time.Second):
		d.t.Fatal("platform did not exit within 60 s")
		return nil
	}
}

// admin runs an admin subcommand against this data directory.
func (d *devProcess) admin(args ...string) string {
	d.t.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env()
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		d.t.Fatalf("platform %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(string(out))
}

func (d *devProcess) token(scope string) string {
	return d.admin("token", "--customer", "demo", "--user", "admin@example.com", "--scope", scope)
}

func (d *devProcess) do(method, path, token string, body any) (int, map[string]any, error) {
	return callAPI(d.baseURL(), method, path, token, body)
}

// callAPI sends a JSON request with a bearer token and decodes the envelope.
func callAPI(base, method, path, token string, body any) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	var env map[string]any
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		return res.StatusCode, nil, err
	}
	return res.StatusCode, env, nil
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// lines returns stdout lines (the seed banner).
func (d *devProcess) lines() []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(d.stdout.String()))
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func payloadID(env map[string]any) string {
	p, _ := env["payload"].(map[string]any)
	id, _ := p["_id"].(string)
	return id
}
