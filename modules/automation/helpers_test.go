package automation_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/apitest"
	"platform/test/testenv"
)

// fixture is automation's scenario fixture: a platform of its own for one
// top-level test, with a second customer, whose automation answers are
// checked against the published OpenAPI document.
type fixture struct{ *apitest.Env }

// automationAPI: an automation call may change these collections.
var automationAPI = apitest.Options{
	Modules: []string{"automation"}, Rights: []string{"automation.*"},
	Collections: []string{"webhooks", "webhookdeliveries", "webhookretries", "pipelines", "pipelineversions", "pipelineruns",
		"triggers", "functions", "functionversions"},
}

type scenario = apitest.Scenario[*fixture]

// newFixture runs the test in parallel with the others, on a platform of its own.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{apitest.New(t, automationAPI)}
}

// For binds the fixture to a subtest.
func (f *fixture) For(t testing.TB) *fixture { return &fixture{f.Env.For(t)} }

// received is one request a test receiver got.
type received struct {
	Path   string
	Header http.Header
	Body   []byte
}

// receiver is a webhook receiver: it records every request and answers
// with the status currently set (204 by default).
type receiver struct {
	srv    *httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	got    []received
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.status.Store(http.StatusNoContent)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) url(path string) string { return r.srv.URL + path }

// requests returns what arrived at path so far.
func (r *receiver) requests(path string) []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []received
	for _, g := range r.got {
		if g.Path == path {
			out = append(out, g)
		}
	}
	return out
}

// waitFor waits until path received n requests, and fails after timeout.
func (r *receiver) waitFor(t *testing.T, path string, n int, timeout time.Duration) []received {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if got := r.requests(path); len(got) >= n {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s received %d requests, want %d within %s", path, len(r.requests(path)), n, timeout)
	return nil
}

// platformWithWorker is a test platform whose outbound calls may reach
// the loopback receivers.
func platformWithWorker(t *testing.T, o testenv.Options) *testenv.Platform {
	o.Worker = true
	prev := o.Configure
	o.Configure = func(c *settings.Config) {
		c.OutboundAllow = []string{"127.0.0.1"}
		if prev != nil {
			prev(c)
		}
	}
	return testenv.NewPlatform(t, o)
}

// swCase is one message for the Standard Webhooks verifier.
type swCase struct {
	Secret  string            `json:"secret"`
	Raw     bool              `json:"raw"` // pass the secret with format "raw"
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"` // base64 of the exact bytes received
}

type swResult struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// verifyStandardWebhooks checks messages with the npm standardwebhooks
// package run by Node, installing it with npm ci when missing. It skips the
// test only when node is not installed.
func verifyStandardWebhooks(t *testing.T, cases []swCase) []swResult {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := nodeProject(t)
	in, _ := json.Marshal(cases)
	cmd := exec.Command(node, filepath.Join(dir, "verify-standardwebhooks.js"))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var res []swResult
	require.NoError(t, json.Unmarshal(out, &res), string(out))
	require.Len(t, res, len(cases))
	return res
}

var npmOnce sync.Mutex

// nodeProject returns test/node, with its dependencies installed.
func nodeProject(t *testing.T) string {
	root, err := testenv.ModuleRoot()
	require.NoError(t, err)
	dir := filepath.Join(root, "test", "node")
	npmOnce.Lock()
	defer npmOnce.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks")); err == nil {
		return dir
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "npm ci in test/node: %s", out)
	return dir
}

func swCaseOf(r received, secret string, raw bool) swCase {
	h := map[string]string{}
	for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		h[k] = r.Header.Get(k)
	}
	return swCase{Secret: secret, Raw: raw, Headers: h, Body: base64.StdEncoding.EncodeToString(r.Body)}
}
