package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"platform/test/testenv"
)

// cluster is the scaled deployment on one machine: `platform infra` (the
// embedded store and Temporal), and `platform api` and `platform worker` as
// separate processes, so one role can be killed while the other runs.
type cluster struct {
	t      *testing.T
	bin    string
	data   string
	http   int
	infra  map[string]string // MONGODB_URI, TEMPORAL_ADDRESS
	api    *role
	worker *role
}

// role is one running process of the cluster.
type role struct {
	cmd    *exec.Cmd
	stderr *testenv.SyncBuffer
	exited chan struct{}
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	bin, err := testenv.PlatformBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, bin: bin, data: t.TempDir(), http: freePort(t)}
	c.startInfra()
	return c
}

func (c *cluster) baseURL() string { return fmt.Sprintf("http://127.0.0.1:%d", c.http) }

// startInfra runs `platform infra` on free ports and reads its addresses.
func (c *cluster) startInfra() {
	envFile := filepath.Join(c.data, "infra.env")
	r := c.run("infra", []string{"--data", filepath.Join(c.data, "infra"), "--store-addr", "127.0.0.1:0",
		"--temporal-port", "0", "--temporal-ui-port", "off", "--env-file", envFile, "--log-level", "error"}, nil)
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(envFile); err == nil {
			c.infra = parseEnv(string(b))
			return
		}
		select {
		case <-r.exited:
			c.t.Fatalf("platform infra exited\n%s", r.stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	c.t.Fatal("platform infra not ready within 90 s")
}

func parseEnv(s string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	return out
}

// env is the roles' environment: the infra's addresses, loopback receivers
// allowed.
func (c *cluster) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MONGODB_URI=") && !strings.HasPrefix(kv, "TEMPORAL_ADDRESS=") && !strings.HasPrefix(kv, "PLATFORM_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"MONGODB_URI="+c.infra["MONGODB_URI"], "TEMPORAL_ADDRESS="+c.infra["TEMPORAL_ADDRESS"],
		"PLATFORM_DATA="+filepath.Join(c.data, "roles"),
		fmt.Sprintf("PLATFORM_HTTP_ADDR=127.0.0.1:%d", c.http), "PLATFORM_GATEWAY_URL="+c.baseURL(),
		"PLATFORM_OUTBOUND_ALLOW=127.0.0.1", "PLATFORM_LOG_LEVEL=info",
	)
}

// run starts the binary with args; it is killed at cleanup.
func (c *cluster) run(cmd string, args []string, env []string) *role {
	r := &role{cmd: exec.Command(c.bin, append([]string{cmd}, args...)...), stderr: &testenv.SyncBuffer{}, exited: make(chan struct{})}
	r.cmd.Env = env
	if env == nil {
		r.cmd.Env = os.Environ()
	}
	r.cmd.Stdout, r.cmd.Stderr = io.Discard, r.stderr
	if err := r.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.exited) }()
	c.t.Cleanup(r.kill)
	return r
}

// kill sends SIGKILL and waits for the exit.
func (r *role) kill() {
	_ = r.cmd.Process.Kill()
	<-r.exited
}

// startAPI runs `platform api` and waits for /readyz.
func (c *cluster) startAPI() {
	c.api = c.run("api", nil, c.env())
	c.waitFor(c.api, "API", func() bool {
		res, err := http.Get(c.baseURL() + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
}

// startWorker runs `platform worker` and waits until it polls.
func (c *cluster) startWorker() {
	c.worker = c.run("worker", nil, c.env())
	w := c.worker
	c.waitFor(w, "worker", func() bool { return strings.Contains(w.stderr.String(), "worker polling") })
}

func (c *cluster) waitFor(r *role, name string, ready func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-r.exited:
			c.t.Fatalf("%s exited\n%s", name, r.stderr.String())
		default:
		}
		if ready() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("%s not ready within 60 s\n%s", name, r.stderr.String())
}

// admin runs an admin command against the cluster's store.
func (c *cluster) admin(args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env = c.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("platform %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// token creates the customer (idempotent) and returns a service token of it.
func (c *cluster) token(customer, scope string) string {
	c.admin("customer", "create", customer)
	return c.admin("token", "--customer", customer, "--scope", scope)
}

func (c *cluster) do(method, path, token string, body any) (int, map[string]any, error) {
	return callAPI(c.baseURL(), method, path, token, body)
}
