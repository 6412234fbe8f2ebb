package cluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// Sizes of the bursts: large enough that a phase lasts several seconds on
// two cores, small enough for CI.
const (
	burstSize    = 100
	burstCallers = 16
)

// TestCluster runs the faults and measurements of docs/deploy.md against
// one cluster, in order; each phase has a customer of its own.
func TestCluster(t *testing.T) {
	c := startCluster(t)
	var figures []string
	report := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		figures = append(figures, line)
		t.Log(line)
	}
	defer func() { t.Logf("figures:\n  %s", strings.Join(figures, "\n  ")) }()

	t.Run("a record created through one API replica is read through the other", func(t *testing.T) {
		c.t = t
		tok := c.token("replicas")
		for i, from := range c.api {
			to := c.api[1-i]
			status, env, err := call(httpc, "POST", from+"/crm/consumers", tok, map[string]any{"email": fmt.Sprintf("r%d@example.com", i)})
			if err != nil || status != 201 {
				t.Fatalf("create on %s: %d %v %v", from, status, env, err)
			}
			id, _ := payload(env)["_id"].(string)
			status, env, err = call(httpc, "GET", to+"/crm/consumers/"+id, tok, nil)
			if err != nil || status != 200 || payload(env)["email"] != fmt.Sprintf("r%d@example.com", i) {
				t.Fatalf("read on %s: %d %v %v", to, status, env, err)
			}
		}
	})

	t.Run("with two workers every event is delivered once and runs spread over both", func(t *testing.T) {
		c.t = t
		runs, hooks := c.throughput(t, "two", report)
		tn := c.lastTenant
		for id, n := range counts(hooks, byID) {
			if n != 1 {
				t.Errorf("delivery %s arrived %d times", id, n)
			}
		}
		for id, n := range counts(runs, byID) {
			if n != 1 {
				t.Errorf("the run of %s called the receiver %d times", id, n)
			}
		}
		byWorker := c.runsByWorker(t, tn.pipeline)
		report("pipeline runs per worker process (activity starts): %v", byWorker)
		if len(byWorker) < 2 {
			t.Errorf("the runs went to %d worker process(es), want both: %v", len(byWorker), byWorker)
		}
	})

	t.Run("the anonymous rate limit holds across both replicas", func(t *testing.T) {
		c.t = t
		c.rateLimit(t, report)
	})

	t.Run("throughput with one worker", func(t *testing.T) {
		c.t = t
		c.sh("stop", "worker2")
		c.throughput(t, "one", report)
		c.sh("start", "worker2")
		c.waitReady("worker2")
	})

	t.Run("kill -9 of a worker during a burst loses and doubles nothing", func(t *testing.T) {
		c.t = t
		c.killWorkerDuringBurst(t, report)
	})

	t.Run("a restart of the Temporal history service during traffic", func(t *testing.T) {
		c.t = t
		c.restartHistory(t, report)
	})

	t.Run("started in reverse order, the cluster converges", func(t *testing.T) {
		c.t = t
		c.reverseStart(t, report)
	})
}

// throughput creates a burst for a new customer and waits for every
// delivery and run: the rates are the burst over the time from its first
// create to the last arrival.
func (c *cluster) throughput(t *testing.T, phase string, report func(string, ...any)) (runs, hooks []arrival) {
	tn := c.newTenant("tp-" + phase)
	c.lastTenant = tn
	began := time.Now()
	acked, failed := tn.burst(burstSize, burstCallers)
	if len(failed) > 0 {
		t.Fatalf("%d creates failed, e.g. %s", len(failed), failed[0])
	}
	wrote := time.Since(began)
	lastHook, lastRun := tn.waitAll(acked, 5*time.Minute)
	hooks, runs = tn.rc.snapshot()
	report("%s worker(s): %d creates in %.1f s; deliveries %.1f/s (last after %.1f s), pipeline runs %.1f/s (last after %.1f s)",
		phase, len(acked), wrote.Seconds(), rate(len(acked), lastHook.Sub(began)), lastHook.Sub(began).Seconds(),
		rate(len(acked), lastRun.Sub(began)), lastRun.Sub(began).Seconds())
	return runs, hooks
}

func rate(n int, d time.Duration) float64 { return float64(n) / d.Seconds() }

// runsByWorker counts the activity starts of the pipeline's runs by the
// worker process (its pid, from the SDK's identity "pid@host@").
func (c *cluster) runsByWorker(t *testing.T, pipeline string) map[string]int {
	tc, err := client.Dial(client.Options{HostPort: c.addr["TEMPORAL_ADDRESS"], Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	names := map[string]string{}
	for _, w := range []string{"worker1", "worker2"} {
		names[strconv.Itoa(c.pid(w))] = w
	}
	out := map[string]int{}
	var token []byte
	for {
		page, err := tc.ListWorkflow(ctx(t), &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: "default", Query: fmt.Sprintf("PlatformPipeline = '%s'", pipeline), NextPageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range page.Executions {
			it := tc.GetWorkflowHistory(ctx(t), ex.Execution.WorkflowId, ex.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				if a := ev.GetActivityTaskStartedEventAttributes(); a != nil {
					pid, _, _ := strings.Cut(a.Identity, "@")
					name := names[pid]
					if name == "" {
						name = "pid " + pid
					}
					out[name]++
				}
			}
		}
		if token = page.NextPageToken; len(token) == 0 {
			return out
		}
	}
}

// rateLimit sends 160 anonymous calls from one client address through the
// gateway, which spreads them over both replicas: exactly the limit (100)
// is let through in the window.
func (c *cluster) rateLimit(t *testing.T, report func(string, ...any)) {
	const limit, calls = 100, 160
	// All calls in one window of a minute.
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 20*time.Second {
		time.Sleep(left + time.Second)
	}
	hc := fromAddress("127.0.0.77")
	var allowed, refused, other atomic.Int64
	var wg sync.WaitGroup
	next := make(chan struct{}, calls)
	for range calls {
		next <- struct{}{}
	}
	close(next)
	for range 8 {
		wg.Go(func() {
			for range next {
				status, _, err := call(hc, "GET", c.gateway+"/crm/consumers", "", nil)
				switch {
				case err != nil:
					other.Add(1)
				case status == 401:
					allowed.Add(1)
				case status == 429:
					refused.Add(1)
				default:
					other.Add(1)
				}
			}
		})
	}
	wg.Wait()
	report("rate limit %d per window, %d calls over both replicas: %d let through, %d refused (429)", limit, calls, allowed.Load(), refused.Load())
	if other.Load() > 0 {
		t.Errorf("%d calls answered neither 401 nor 429", other.Load())
	}
	if got := allowed.Load(); got < limit-1 || got > limit {
		t.Errorf("%d calls let through a limit of %d shared by two replicas", got, limit)
	}
	for _, api := range []string{"api1", "api2"} {
		b, _ := os.ReadFile(filepath.Join(c.data, "logs", api+".log"))
		if !bytes.Contains(b, []byte(`"status":429`)) {
			t.Errorf("%s refused none: the gateway did not spread the calls", api)
		}
	}
}

// killWorkerDuringBurst: SIGKILL one worker once a fifth of a burst's runs
// called the receiver; every run finishes on the other worker, every event
// is delivered, and only work in flight at the kill may arrive twice.
func (c *cluster) killWorkerDuringBurst(t *testing.T, report func(string, ...any)) {
	tn := c.newTenant("kill")
	var acked, failed []string
	done := make(chan struct{})
	go func() { defer close(done); acked, failed = tn.burst(burstSize, burstCallers) }()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		_, runs := tn.rc.snapshot()
		if len(runs) >= burstSize/5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no fifth of the runs within 3 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.sh("kill", "worker1")
	killed := time.Now()
	<-done
	if len(failed) > 0 {
		t.Fatalf("%d creates failed, e.g. %s", len(failed), failed[0])
	}
	lastHook, lastRun := tn.waitAll(acked, 6*time.Minute)
	hooks, runs := tn.rc.snapshot()
	for _, r := range tn.runRecords() {
		if r["status"] != "success" {
			t.Errorf("run %v ended %v: %v", r["_id"], r["status"], r["error"])
		}
	}
	dupHooks, dupRuns := inFlightOnly(t, "delivery", hooks, killed), inFlightOnly(t, "run call", runs, killed)
	report("kill -9 of worker1 during a burst of %d: all delivered %.1f s and all runs done %.1f s after the kill; "+
		"%d deliveries and %d run calls arrived twice (in flight at the kill; same delivery id, receivers dedupe)",
		len(acked), lastHook.Sub(killed).Seconds(), lastRun.Sub(killed).Seconds(), dupHooks, dupRuns)
	c.sh("start", "worker1")
	c.waitReady("worker1")
}

// inFlightOnly fails for anything that arrived twice although its first
// arrival came after the kill, and returns how many arrived twice.
func inFlightOnly(t *testing.T, what string, as []arrival, killed time.Time) int {
	firstAt := map[string]time.Time{}
	dups := 0
	for _, a := range as {
		if f, ok := firstAt[a.id]; !ok || a.at.Before(f) {
			firstAt[a.id] = a.at
		}
	}
	for id, n := range counts(as, byID) {
		if n > 1 {
			dups++
		}
		if n > 2 || (n == 2 && firstAt[id].After(killed)) {
			t.Errorf("%s %s arrived %d times, first %s after the kill", what, id, n, firstAt[id].Sub(killed))
		}
	}
	return dups
}

// restartHistory: a writer creates consumers throughout while the history
// service is stopped and started again; every write is acknowledged, and
// the deliveries and runs of the writes made meanwhile resume.
func (c *cluster) restartHistory(t *testing.T, report func(string, ...any)) {
	tn := c.newTenant("history")
	var mu sync.Mutex
	var acked, failed []string
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			status, env, err := call(httpc, "POST", c.gateway+"/crm/consumers", tn.token, map[string]any{"email": fmt.Sprintf("h-%d@example.com", i)})
			mu.Lock()
			if err == nil && status == 201 {
				id, _ := payload(env)["_id"].(string)
				acked = append(acked, id)
			} else {
				failed = append(failed, fmt.Sprintf("%d %v %v", status, err, env))
			}
			mu.Unlock()
		}
	}()
	time.Sleep(3 * time.Second)
	stopped := time.Now()
	c.sh("stop", "temporal-history")
	time.Sleep(5 * time.Second)
	c.sh("start", "temporal-history")
	restarted := time.Now()
	time.Sleep(8 * time.Second)
	close(stop)
	<-done
	if len(failed) > 0 {
		t.Errorf("%d of %d writes not acknowledged while the history service restarted, e.g. %s", len(failed), len(failed)+len(acked), failed[0])
	}
	lastHook, lastRun := tn.waitAll(acked, 6*time.Minute)
	hooks, _ := tn.rc.snapshot()
	report("history service stopped %.1f s: %d writes acknowledged, %d refused; deliveries during the outage: %d; "+
		"after the restart the last delivery came %.1f s and the last run %.1f s later",
		restarted.Sub(stopped).Seconds(), len(acked), len(failed), between(hooks, stopped, restarted),
		lastHook.Sub(restarted).Seconds(), lastRun.Sub(restarted).Seconds())
}

func between(as []arrival, from, to time.Time) int {
	n := 0
	for _, a := range as {
		if a.at.After(from) && a.at.Before(to) {
			n++
		}
	}
	return n
}

// reverseStart stops everything and starts it dependents first: the
// gateway and the replicas wait for FerretDB and Temporal, which wait for
// PostgreSQL; once that is up, everything becomes ready and works.
func (c *cluster) reverseStart(t *testing.T, report func(string, ...any)) {
	c.sh("down")
	began := time.Now()
	order := []string{"gateway", "worker2", "worker1", "api2", "api1", "ferretdb", "temporal-ui",
		"temporal-worker", "temporal-matching", "temporal-history", "temporal-frontend"}
	for _, name := range order {
		c.sh("start", name)
	}
	time.Sleep(5 * time.Second) // everything above retries meanwhile
	status := c.sh("status")
	for _, name := range []string{"worker1", "worker2", "api1", "api2"} {
		if !strings.Contains(status, padded(name)+" running") {
			t.Fatalf("%s exited while PostgreSQL was down:\n%s", name, status)
		}
	}
	var exited []string // servers a supervisor would restart
	for _, name := range []string{"ferretdb", "temporal-ui", "temporal-worker", "temporal-matching", "temporal-history", "temporal-frontend"} {
		if !strings.Contains(status, padded(name)+" running") {
			exited = append(exited, name)
		}
	}
	c.sh("start", "postgres")
	c.sh("up") // starts what is not running (as a supervisor would), waits for readiness
	for _, w := range []string{"worker1", "worker2"} {
		c.waitReady(w)
	}
	tn := c.newTenant("reverse")
	acked, failed := tn.burst(10, 2)
	if len(failed) > 0 {
		t.Fatalf("creates after the start failed: %v", failed)
	}
	tn.waitAll(acked, 3*time.Minute)
	report("started in reverse order (PostgreSQL last, 5 s later): the platform processes waited; servers that exited meanwhile and were started again: %v; working %.1f s after the first start",
		exited, time.Since(began).Seconds())
}

// padded is a component name as `cluster.sh status` prints it.
func padded(name string) string { return fmt.Sprintf("%-18s", name) }
