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
// floors they stand on, in one run against the same servers:
//   - webhook: consumers created through the API by 20 writers, one
//     subscribed webhook; events/s from the first write to the last
//     receipt, and the latency from a write's start to its event's receipt
//     (under saturation: mostly queueing);
//   - webhook-serial: one write at a time, each waiting for its receipt:
//     the latency of an unloaded platform;
//   - rawpost: the same signed POSTs sent by a plain Go HTTP loop to the
//     same receiver (the floor without the platform);
//   - workflow: trivial workflows (one no-op activity) on the same Temporal
//     server (the floor of anything Temporal runs; a delivery is two
//     workflows: the event's dispatch and the delivery).
//
// Run: make bench-webhooks (or go test -run '^$' -bench Webhooks -benchtime 300x ./bench/).
func BenchmarkWebhooks(b *testing.B) {
	p := testenv.NewPlatform(b, testenv.Options{Worker: true, Configure: func(c *settings.Config) { c.OutboundAllow = []string{"127.0.0.1"} }})
	rc := newBenchReceiver(b)
	tok := p.Token("automation.*", "crm.*")
	r := p.Do("POST", "/automation/webhooks", tok, map[string]any{"name": "bench", "url": rc.srv.URL, "events": []string{"consumers.created"},
		"secret": "bench-secret-0123456789abcdefghijkl"})
	if r.Status != 201 {
		b.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	results := map[string]float64{}
	b.Run("webhook", func(b *testing.B) { results["webhook"] = benchWebhook(b, p, rc, tok) })
	b.Run("webhook-serial", func(b *testing.B) { benchWebhookSerial(b, p, rc, tok) })
	b.Run("rawpost", func(b *testing.B) { results["rawpost"] = benchRawPost(b, rc) })
	b.Run("workflow", func(b *testing.B) { results["workflow"] = benchWorkflows(b, p) })
	fmt.Printf("webhooks: end to end %.1f events/s; raw POST loop %.1f/s (%.0fx); trivial workflows %.1f/s (%.2f workflows per event at the webhook rate)\n",
		results["webhook"], results["rawpost"], results["rawpost"]/results["webhook"], results["workflow"], results["workflow"]/results["webhook"])
}

// benchReceiver notes when each message arrives, keyed by data.email.
type benchReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	start map[string]time.Time // email -> write start
	lat   []time.Duration
	last  time.Time
	got   atomic.Int64
}

func newBenchReceiver(b *testing.B) *benchReceiver {
	rc := &benchReceiver{start: map[string]time.Time{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &m)
		email, _ := m.Data["email"].(string)
		now := time.Now()
		rc.mu.Lock()
		if t0, ok := rc.start[email]; ok {
			rc.lat = append(rc.lat, now.Sub(t0))
			rc.last = now
			delete(rc.start, email)
			rc.got.Add(1)
		}
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(rc.srv.Close)
	return rc
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
	rc.start, rc.lat, rc.last = map[string]time.Time{}, nil, time.Time{}
	rc.mu.Unlock()
	rc.got.Store(0)
}

// await waits for n messages and reports rate and latency since begin.
func (rc *benchReceiver) await(b *testing.B, n int, begin time.Time, unit string) float64 {
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

func report(b *testing.B, lat []time.Duration, elapsed time.Duration, unit string) float64 {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	rate := float64(len(lat)) / elapsed.Seconds()
	b.ReportMetric(rate, unit)
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	return rate
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

func benchWebhook(b *testing.B, p *testenv.Platform, rc *benchReceiver, tok string) float64 {
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
	return rc.await(b, b.N, begin, "events/s")
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
	rc.await(b, b.N, begin, "events/s")
}

// benchRawPost sends the same signed message shape with a plain client.
func benchRawPost(b *testing.B, rc *benchReceiver) float64 {
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
func benchWorkflows(b *testing.B, p *testenv.Platform) float64 {
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
