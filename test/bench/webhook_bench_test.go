package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
)

// writers is the number of concurrent clients of every webhook benchmark.
const writers = 20

// BenchmarkWebhooks measures outbound webhooks end to end and the two
// floors they stand on, in one run against the same servers (issue 14):
//   - webhook-1: consumers created through the API by 20 writers, one
//     subscribed webhook; deliveries/s from the first write to the last
//     receipt, and the latency from a write's start to its receipt;
//   - webhook-10: the same with 10 webhooks (every event goes to each);
//   - webhook-10-slow: 9 of those 10 plus one whose receiver answers
//     after the webhook time-out (10% of the webhooks time out); the
//     figures are the healthy nine's;
//   - webhook-serial: one write at a time, each waiting for its receipt:
//     the latency of an unloaded platform;
//   - rawpost: the same signed POSTs sent by a plain Go HTTP loop to the
//     same receiver (the floor without the platform);
//   - workflow: trivial workflows (one no-op activity) on the same Temporal
//     server (what a delivery would cost if it were a workflow).
//
// Run: make bench-webhooks (or go test -run '^$' -bench Webhooks -benchtime 1000x ./bench/).
func BenchmarkWebhooks(b *testing.B) {
	// platform dev's store: the embedded SQLite one (FerretDB, the stand-in
	// for MongoDB in tests, scans for every query but by _id).
	p := testenv.NewPlatform(b, testenv.Options{Store: "sqlite", Worker: true, Configure: func(c *settings.Config) {
		c.OutboundAllow = []string{"127.0.0.1"}
		c.WebhookTimeout = 2 * time.Second // the slow receiver times out sooner than the default 10 s
	}})
	rc, slow := newBenchReceiver(b), newSlowReceiver(b, 3*time.Second)
	tok := p.Token("automation.*", "crm.*")
	hooks := make([]string, 10)
	for i := range hooks {
		hooks[i] = createBenchHook(b, p, tok, fmt.Sprintf("%s/h%d", rc.srv.URL, i), i == 0)
	}
	setActive(b, p, tok, hooks[1:], false)
	res := map[string]result{}
	b.Run("webhook-1", func(b *testing.B) { res["1"] = benchWebhook(b, p, rc, tok, 1) })
	setActive(b, p, tok, hooks[1:], true)
	b.Run("webhook-10", func(b *testing.B) { res["10"] = benchWebhook(b, p, rc, tok, 10) })
	setActive(b, p, tok, hooks[9:], false)
	createBenchHook(b, p, tok, slow.URL, true)
	b.Run("webhook-10-slow", func(b *testing.B) { res["slow"] = benchWebhook(b, p, rc, tok, 9) })
	b.Run("webhook-serial", func(b *testing.B) { benchWebhookSerial(b, p, rc, tok) })
	b.Run("rawpost", func(b *testing.B) { res["raw"] = benchRawPost(b, rc) })
	b.Run("workflow", func(b *testing.B) { res["wf"] = benchWorkflows(b, p) })
	printWebhookSummary(res)
}

func printWebhookSummary(res map[string]result) {
	fmt.Printf("webhooks, 1 webhook: %.1f deliveries/s, p50 %.1f ms, p99 %.1f ms\n", res["1"].rate, res["1"].p50, res["1"].p99)
	fmt.Printf("webhooks, 10 webhooks: %.1f deliveries/s, p50 %.1f ms, p99 %.1f ms\n", res["10"].rate, res["10"].p50, res["10"].p99)
	fmt.Printf("webhooks, 9 healthy + 1 timing out: %.1f deliveries/s, p50 %.1f ms, p99 %.1f ms (p99 %+.0f%% against 10 healthy)\n",
		res["slow"].rate, res["slow"].p50, res["slow"].p99, 100*(res["slow"].p99/res["10"].p99-1))
	fmt.Printf("floors: raw POST loop %.1f/s (%.1fx the 1-webhook rate); trivial workflows %.1f/s (%.1fx)\n",
		res["raw"].rate, res["raw"].rate/res["1"].rate, res["wf"].rate, res["1"].rate/res["wf"].rate)
}

// createBenchHook creates a webhook on consumers.created to url.
func createBenchHook(b *testing.B, p *testenv.Platform, tok, url string, active bool) string {
	r := p.Do("POST", "/automation/webhooks", tok, map[string]any{"name": "bench", "url": url, "events": []string{"consumers.created"},
		"secret": "bench-secret-0123456789abcdefghijkl", "active": active})
	if r.Status != 201 {
		b.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	return r.Payload()["_id"].(string)
}

func setActive(b *testing.B, p *testenv.Platform, tok string, ids []string, active bool) {
	for _, id := range ids {
		if r := p.Do("PATCH", "/automation/webhooks/"+id, tok, map[string]any{"active": active}); r.Status != 200 {
			b.Fatalf("patch webhook: %d %s", r.Status, r.Body)
		}
	}
}

// newSlowReceiver answers after delay (longer than the webhook time-out),
// or when the caller gives up.
func newSlowReceiver(b *testing.B, delay time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchReceiver notes when each delivery arrives: the latency from the
// write of its record (keyed by data.email) to its receipt, once per
// (path, email), so one receiver serves many webhooks (one path each).
type benchReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	start map[string]time.Time // email -> write start
	seen  map[string]bool      // path|email delivered
	lat   []time.Duration
	last  time.Time
	got   atomic.Int64
	delay time.Duration // how long each answer takes (set before use)
}

func newBenchReceiver(b *testing.B) *benchReceiver {
	rc := &benchReceiver{}
	rc.reset()
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &m)
		email, _ := m.Data["email"].(string)
		rc.note(r.URL.Path+"|"+email, email)
		time.Sleep(rc.delay)
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(rc.srv.Close)
	return rc
}

func (rc *benchReceiver) note(key, email string) {
	now := time.Now()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	t0, ok := rc.start[email]
	if !ok || rc.seen[key] {
		return
	}
	rc.seen[key] = true
	rc.lat = append(rc.lat, now.Sub(t0))
	rc.last = now
	rc.got.Add(1)
}

// expect registers a message about to be sent and returns its start.
func (rc *benchReceiver) expect(email string) {
	rc.mu.Lock()
	rc.start[email] = time.Now()
	rc.mu.Unlock()
}

// reset forgets earlier rounds.
func (rc *benchReceiver) reset() {
	rc.mu.Lock()
	rc.start, rc.seen, rc.lat, rc.last = map[string]time.Time{}, map[string]bool{}, nil, time.Time{}
	rc.mu.Unlock()
	rc.got.Store(0)
}

// await waits for n deliveries and reports rate and latency since begin.
func (rc *benchReceiver) await(b *testing.B, n int, begin time.Time, unit string) result {
	deadline := time.Now().Add(10 * time.Minute)
	for rc.got.Load() < int64(n) {
		if time.Now().After(deadline) {
			b.Fatalf("received %d of %d within 10 minutes", rc.got.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return report(b, rc.lat, rc.last.Sub(begin), unit)
}

// result is one measured side: rate and write-to-receipt latency.
type result struct {
	rate     float64
	p50, p99 float64 // milliseconds
}

func report(b *testing.B, lat []time.Duration, elapsed time.Duration, unit string) result {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r := result{rate: float64(len(lat)) / elapsed.Seconds(), p50: ms(lat[len(lat)/2]), p99: ms(lat[len(lat)*99/100])}
	b.ReportMetric(r.rate, unit)
	b.ReportMetric(r.p50, "p50-ms")
	b.ReportMetric(r.p99, "p99-ms")
	return r
}

// parallel runs op(i) for i in [0, n) from writers goroutines.
func parallel(n int, op func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				op(i)
			}
		}()
	}
	wg.Wait()
}

var round atomic.Int64

// benchWebhook writes b.N consumers and waits for every delivery to the
// hooks healthy webhooks (the deliveries/s and latency reported).
func benchWebhook(b *testing.B, p *testenv.Platform, rc *benchReceiver, tok string, hooks int) result {
	rc.reset()
	tag := round.Add(1)
	var failed atomic.Int64
	b.ResetTimer()
	begin := time.Now()
	parallel(b.N, func(i int) {
		email := fmt.Sprintf("wh%d-%d@example.com", tag, i)
		rc.expect(email)
		if r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": email, "first_name": "Bench"}); r.Status != 201 {
			failed.Add(1)
		}
	})
	if failed.Load() > 0 {
		b.Fatalf("%d writes failed", failed.Load())
	}
	return rc.await(b, b.N*hooks, begin, "deliveries/s")
}

func benchWebhookSerial(b *testing.B, p *testenv.Platform, rc *benchReceiver, tok string) {
	rc.reset()
	tag := round.Add(1)
	b.ResetTimer()
	begin := time.Now()
	for i := 0; i < b.N; i++ {
		email := fmt.Sprintf("serial%d-%d@example.com", tag, i)
		rc.expect(email)
		if r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": email, "first_name": "Bench"}); r.Status != 201 {
			b.Fatalf("write: %d", r.Status)
		}
		deadline := time.Now().Add(time.Minute)
		for rc.got.Load() < int64(i+1) {
			if time.Now().After(deadline) {
				b.Fatalf("event %d not received within a minute", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
	rc.await(b, b.N, begin, "deliveries/s")
}

// benchRawPost sends the same signed message shape with a plain client.
func benchRawPost(b *testing.B, rc *benchReceiver) result {
	rc.reset()
	tag := round.Add(1)
	target := webhook.Target{URL: rc.srv.URL, Secret: "bench-secret-0123456789abcdefghijkl"}
	hc := &http.Client{Timeout: 10 * time.Second}
	b.ResetTimer()
	begin := time.Now()
	parallel(b.N, func(i int) {
		email := fmt.Sprintf("raw%d-%d@example.com", tag, i)
		rc.expect(email)
		m := webhook.Message{DeliveryID: store.NewID(), Event: "consumers.created", Timestamp: time.Now(), Customer: "c",
			Data: map[string]any{"_id": store.NewID(), "email": email, "first_name": "Bench"}}
		body, _ := m.Body()
		req, _ := webhook.NewRequest(context.Background(), target, m, body, time.Now())
		if res, err := hc.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	})
	return rc.await(b, b.N, begin, "posts/s")
}

// benchWorkflows runs trivial workflows on their own task queue.
func benchWorkflows(b *testing.B, p *testenv.Platform) result {
	queue := p.TaskQueue + "-trivial"
	w := sdkworker.New(p.Temporal, queue, sdkworker.Options{})
	w.RegisterWorkflowWithOptions(trivialWorkflow, workflow.RegisterOptions{Name: "BenchTrivial"})
	w.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "BenchNoop"})
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	var lat []time.Duration
	var failed atomic.Int64
	b.ResetTimer()
	begin := time.Now()
	parallel(b.N, func(i int) {
		t0 := time.Now()
		run, err := p.Temporal.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: queue}, "BenchTrivial")
		if err == nil {
			err = run.Get(context.Background(), nil)
		}
		if err != nil {
			failed.Add(1)
		}
		mu.Lock()
		lat = append(lat, time.Since(t0))
		mu.Unlock()
	})
	if failed.Load() > 0 {
		b.Fatalf("%d workflows failed", failed.Load())
	}
	return report(b, lat, time.Since(begin), "workflows/s")
}

func trivialWorkflow(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	return workflow.ExecuteActivity(ctx, "BenchNoop").Get(ctx, nil)
}
