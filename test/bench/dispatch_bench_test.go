package bench

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/modules/automation/runs"
	"platform/test/testenv"
)

// BenchmarkDispatchBulk measures event dispatch under a bulk write (issue
// 14): b.N consumers created through the API by 20 writers while one
// pipeline is triggered by consumers.created, on the embedded SQLite store
// and Temporal. It reports the write rate, the dispatch rate (events
// marked dispatched, i.e. their run started, per second from the first
// write to the last mark) and the lag of the last event behind its write.
// Runs are Temporal workflows, so the dispatch rate is bounded by the
// server's workflow starts, not by the dispatcher; the lag is what
// platform_dispatch_lag_seconds shows in /metrics meanwhile.
//
// Run: make bench-dispatch (or go test -run '^$' -bench DispatchBulk -benchtime 2000x ./bench/).
func BenchmarkDispatchBulk(b *testing.B) {
	p := testenv.NewPlatform(b, testenv.Options{Store: "sqlite", Worker: true})
	tok := p.Token("automation.*", "crm.*")
	r := p.Do("POST", "/automation/pipelines", tok, map[string]any{
		"name": "bulk", "trigger": map[string]any{"event": "consumers.created"},
		"steps": []any{map[string]any{"id": "check", "type": "condition", "if": map[string]any{"input.email": "nobody"}, "then": "end", "else": "end"}},
	})
	if r.Status != 201 {
		b.Fatalf("create pipeline: %d %s", r.Status, r.Body)
	}
	tag := round.Add(1)
	var failed atomic.Int64
	b.ResetTimer()
	begin := time.Now()
	parallel(b.N, func(i int) {
		if r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": fmt.Sprintf("bulk%d-%d@example.com", tag, i)}); r.Status != 201 {
			failed.Add(1)
		}
	})
	written := time.Since(begin)
	if failed.Load() > 0 {
		b.Fatalf("%d writes failed", failed.Load())
	}
	dispatched := waitDispatched(b, p, 10*time.Minute)
	b.StopTimer()
	started, err := p.Store.Collection(runs.Runs).Count(p.Ctx(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/written.Seconds(), "writes/s")
	b.ReportMetric(float64(b.N)/dispatched.Seconds(), "dispatched/s")
	b.ReportMetric((dispatched - written).Seconds(), "lag-s")
	fmt.Printf("bulk: %d consumers written at %.0f/s; dispatched (run started) at %.0f/s; the last event %.1f s after the last write; %d run records\n",
		b.N, float64(b.N)/written.Seconds(), float64(b.N)/dispatched.Seconds(), (dispatched - written).Seconds(), started)
}

// waitDispatched waits until no event is left undispatched and returns
// the time since the benchmark's timer started.
func waitDispatched(b *testing.B, p *testenv.Platform, limit time.Duration) time.Duration {
	begin := time.Now()
	pending := query.Eq("dispatched", false)
	for {
		n, err := p.Store.Collection(events.Collection).Count(p.Ctx(), pending)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			return b.Elapsed()
		}
		if time.Since(begin) > limit {
			b.Fatalf("%d events still not dispatched", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkWebhooksScale shows deliveries growing with worker processes:
// an API without a dispatcher and 1, then 2, worker processes (separate
// Apps on the same store and Temporal server, as replicas would be), one
// webhook whose receiver takes 40 ms per answer, and at most 4 attempts in
// flight per webhook and process (PLATFORM_WEBHOOK_LANE_CONCURRENCY), so
// one process delivers at most 100/s. On one 2-core machine the processes
// share the CPU, so this shows the dispatchers sharing the events (claims)
// and adding their capacity, not a cluster's absolute figures.
func BenchmarkWebhooksScale(b *testing.B) {
	rates := map[int]float64{}
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers-%d", n), func(b *testing.B) {
			p := testenv.NewPlatform(b, testenv.Options{Store: "sqlite", Workers: n, Configure: func(c *settings.Config) {
				c.OutboundAllow, c.WebhookLaneConcurrency = []string{"127.0.0.1"}, 4
			}})
			rc := newBenchReceiver(b)
			rc.delay = 40 * time.Millisecond
			tok := p.Token("automation.*", "crm.*")
			createBenchHook(b, p, tok, rc.srv.URL+"/scale", true)
			rates[n] = benchWebhook(b, p, rc, tok, 1).rate
		})
	}
	fmt.Printf("webhooks scale: 1 worker %.1f deliveries/s, 2 workers %.1f deliveries/s (%.2fx)\n", rates[1], rates[2], rates[2]/rates[1])
}
