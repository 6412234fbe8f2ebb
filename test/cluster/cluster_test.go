// Package cluster tests the scaled deployment as `make cluster` runs it
// (deploy/cluster.sh): PostgreSQL, the Temporal server as four processes,
// FerretDB on PostgreSQL, two API replicas behind nginx and two workers.
// TestCluster starts its own cluster on fresh data and other ports, and
// runs only under `make test-cluster` (which sets CLUSTER_TOOLS); the
// comparison of docker-compose.yml with it runs everywhere.
package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"platform/test/infra"
)

// cluster is a running deploy/cluster.sh set.
type cluster struct {
	t       *testing.T
	root    string
	script  string
	data    string
	env     []string          // cluster.sh's environment
	addr    map[string]string // deploy/cluster.sh env
	gateway string
	api     [2]string
	// lastTenant is the customer of the last throughput phase.
	lastTenant *tenant
}

// startCluster brings up a cluster on fresh data, stopped when the test
// ends (its data removed unless the test failed).
func startCluster(t *testing.T) *cluster {
	tools := os.Getenv("CLUSTER_TOOLS")
	if tools == "" {
		t.Skip("needs the cluster's servers: make test-cluster")
	}
	root, err := infra.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := infra.PlatformBinary()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.MkdirTemp("", "platform-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	base := os.Getenv("CLUSTER_TEST_PORT_BASE")
	if base == "" {
		base = "19000"
	}
	c := &cluster{t: t, root: root, script: filepath.Join(root, "deploy", "cluster.sh"), data: data}
	c.env = append(os.Environ(), "CLUSTER_TOOLS="+tools, "CLUSTER_DATA="+data, "CLUSTER_PORT_BASE="+base, "PLATFORM_BIN="+bin,
		// The test's receivers listen on loopback.
		"PLATFORM_OUTBOUND_ALLOW=127.0.0.1",
		// The shared limit under test is the anonymous one (per client
		// address, the same limiter as a customer's), so that the bursts
		// of creates are not limited.
		"PLATFORM_RATE_LIMIT_ANONYMOUS=100", "PLATFORM_RATE_LIMIT=1000000", "PLATFORM_RATE_WINDOW=1m")
	t.Cleanup(func() {
		c.t = t // not a subtest's, which has ended
		c.sh("down")
		if t.Failed() {
			t.Logf("cluster data and logs kept in %s", data)
			return
		}
		// The unprivileged user's part may live elsewhere (/var/lib).
		if home, err := os.Readlink(filepath.Join(data, "home")); err == nil {
			_ = os.RemoveAll(home)
		}
		_ = os.RemoveAll(data)
	})
	began := time.Now()
	c.sh("up")
	t.Logf("cluster up in %s", time.Since(began).Round(time.Second))
	c.addr = parseEnv(c.sh("env"))
	c.gateway = c.addr["PLATFORM_GATEWAY_URL"]
	c.api = [2]string{c.addr["CLUSTER_API1"], c.addr["CLUSTER_API2"]}
	return c
}

// sh runs deploy/cluster.sh and returns its standard output.
func (c *cluster) sh(args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.script, args...)
	cmd.Env = c.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("cluster.sh %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
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

// pid is a running component's process id.
func (c *cluster) pid(name string) int {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.data, "run", name+".pid"))
	if err != nil {
		c.t.Fatalf("pid of %s: %v", name, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

// waitReady waits until a worker's probe answers /readyz 200 (after a
// start: it polls Temporal).
func (c *cluster) waitReady(name string) {
	c.t.Helper()
	url := c.addr["CLUSTER_"+strings.ToUpper(name)] + "/readyz"
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if status, _, err := call(httpc, "GET", url, "", nil); err == nil && status == 200 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("%s not ready within 3 minutes", name)
}

// admin runs a platform admin command against the cluster's store.
func (c *cluster) admin(args ...string) string {
	c.t.Helper()
	bin, _ := infra.PlatformBinary()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "MONGODB_URI="+c.addr["MONGODB_URI"], "TEMPORAL_ADDRESS="+c.addr["TEMPORAL_ADDRESS"],
		"PLATFORM_GATEWAY_URL="+c.gateway, "PLATFORM_DOMAIN="+c.addr["PLATFORM_DOMAIN"])
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("platform %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// token creates the customer and returns a token of it.
func (c *cluster) token(customer string) string {
	c.admin("customer", "create", customer)
	return c.admin("token", "--customer", customer, "--scope", "automation.* crm.*", "--ttl", "2h")
}

var httpc = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// call sends one request; the answer's envelope is decoded when it is JSON.
func call(hc *http.Client, method, url, token string, body any) (int, map[string]any, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	var env map[string]any
	raw, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(raw, &env)
	return res.StatusCode, env, nil
}

func payload(env map[string]any) map[string]any {
	p, _ := env["payload"].(map[string]any)
	return p
}

func records(env map[string]any) []map[string]any {
	list, _ := env["payload"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		m, _ := e.(map[string]any)
		out = append(out, m)
	}
	return out
}

// fromAddress is an HTTP client whose connections come from a loopback
// address of its own, which the gateway passes on as the client address.
func fromAddress(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 16}}
}

// receiver records webhook deliveries (/hook) and the pipeline runs' http
// step calls (/run), each with the time it arrived.
type receiver struct {
	url   string
	mu    sync.Mutex
	hooks []arrival
	runs  []arrival
}

type arrival struct {
	id       string // delivery id (hooks) or consumer id (runs)
	consumer string
	at       time.Time
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(rc.serve)}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	rc.url = "http://" + ln.Addr().String()
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Consumer string         `json:"consumer"`
		Data     map[string]any `json:"data"`
	}
	_ = json.NewDecoder(r.Body).Decode(&msg)
	now := time.Now()
	rc.mu.Lock()
	switch r.URL.Path {
	case "/hook":
		id, _ := msg.Data["_id"].(string)
		rc.hooks = append(rc.hooks, arrival{id: r.Header.Get("X-Platform-Delivery"), consumer: id, at: now})
	case "/run":
		rc.runs = append(rc.runs, arrival{id: msg.Consumer, consumer: msg.Consumer, at: now})
	}
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) snapshot() (hooks, runs []arrival) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]arrival(nil), rc.hooks...), append([]arrival(nil), rc.runs...)
}

// tenant is one customer with a webhook and a pipeline to the receiver.
type tenant struct {
	c        *cluster
	name     string
	token    string
	pipeline string
	rc       *receiver
}

func (c *cluster) newTenant(name string) *tenant {
	c.t.Helper()
	tn := &tenant{c: c, name: name, token: c.token(name), rc: newReceiver(c.t)}
	status, env, err := call(httpc, "POST", c.gateway+"/automation/webhooks", tn.token, map[string]any{
		"name": "cluster test", "url": tn.rc.url + "/hook", "events": []string{"consumers.created"},
		"secret": "cluster-test-webhook-secret-0123456789"})
	if err != nil || status != 201 {
		c.t.Fatalf("create webhook: %d %v %v", status, env, err)
	}
	status, env, err = call(httpc, "POST", c.gateway+"/automation/pipelines", tn.token, map[string]any{
		"name": "tell the receiver", "trigger": map[string]any{"event": "consumers.created"},
		"steps": []any{map[string]any{"id": "tell", "type": "http", "method": "POST", "url": tn.rc.url + "/run",
			"body": map[string]any{"consumer": "{{event.data._id}}"}}},
	})
	if err != nil || status != 201 {
		c.t.Fatalf("create pipeline: %d %v %v", status, env, err)
	}
	tn.pipeline, _ = payload(env)["_id"].(string)
	return tn
}

// burst creates n consumers through the gateway from clients callers at
// once and returns the ids of those acknowledged (201), and the failures.
func (tn *tenant) burst(n, callers int) (acked []string, failed []string) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range callers {
		wg.Go(func() {
			for i := range next {
				status, env, err := call(httpc, "POST", tn.c.gateway+"/crm/consumers", tn.token,
					map[string]any{"email": fmt.Sprintf("%s-%d@example.com", tn.name, i)})
				mu.Lock()
				if err == nil && status == 201 {
					id, _ := payload(env)["_id"].(string)
					acked = append(acked, id)
				} else {
					failed = append(failed, fmt.Sprintf("%d %v %v", status, err, env))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return acked, failed
}

// waitAll waits until every id reached the webhook and its run called the
// receiver, and the runs are recorded finished; it returns the time the
// last delivery and the last run call arrived.
func (tn *tenant) waitAll(ids []string, within time.Duration) (lastHook, lastRun time.Time) {
	t := tn.c.t
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		hooks, runs := tn.rc.snapshot()
		missHooks, missRuns := missing(ids, hooks), missing(ids, runs)
		if len(missHooks) == 0 && len(missRuns) == 0 && tn.runsFinished(len(ids)) {
			return latest(hooks), latest(runs)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: after %s, %d of %d events not delivered, %d runs not called (e.g. %v %v)",
				tn.name, within, len(missHooks), len(ids), len(missRuns), first(missHooks), first(missRuns))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// runsFinished: the pipeline has exactly n run records, none running.
func (tn *tenant) runsFinished(n int) bool {
	runs := tn.runRecords()
	if len(runs) > n {
		tn.c.t.Fatalf("%s: %d run records for %d events", tn.name, len(runs), n)
	}
	if len(runs) < n {
		return false
	}
	for _, r := range runs {
		if r["status"] == "running" {
			return false
		}
	}
	return true
}

func (tn *tenant) runRecords() []map[string]any {
	var all []map[string]any
	for page := 1; ; page++ {
		status, env, err := call(httpc, "GET", fmt.Sprintf("%s/automation/pipelineruns?pipeline=%s&limit=500&page=%d", tn.c.gateway, tn.pipeline, page), tn.token, nil)
		if err != nil || status != 200 {
			tn.c.t.Fatalf("list runs: %d %v %v", status, env, err)
		}
		recs := records(env)
		all = append(all, recs...)
		if len(recs) < 500 {
			return all
		}
	}
}

func missing(ids []string, got []arrival) []string {
	seen := map[string]bool{}
	for _, a := range got {
		seen[a.consumer] = true
	}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			out = append(out, id)
		}
	}
	return out
}

func latest(as []arrival) time.Time {
	var l time.Time
	for _, a := range as {
		if a.at.After(l) {
			l = a.at
		}
	}
	return l
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// counts is how many times each key arrived.
func counts(as []arrival, key func(arrival) string) map[string]int {
	out := map[string]int{}
	for _, a := range as {
		out[key(a)]++
	}
	return out
}

func byID(a arrival) string { return a.id }

// ctx is a short context for a Temporal call.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}
