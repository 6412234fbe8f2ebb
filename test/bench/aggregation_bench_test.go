package bench

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/aggregation/readmodel"
	"platform/test/testenv"
)

// BenchmarkAggregationLag measures, on each store in one run, the lag of
// the aggregation service under a steady write load: b.N tasks are first
// written as fast as 20 writers can (the raw write rate, every write
// also feeding the read models), then b.N more at a quarter of that rate,
// paced; for each of the paced writes the lag is the time from its event
// being recorded (the write acknowledged) to the batch that moved its
// consumer's activity row having finished (the inbox entry's appliedAt).
// It reports the raw and the paced write rate and the lag's p50 and p99.
//
// Run: make bench-aggregation.
func BenchmarkAggregationLag(b *testing.B) {
	for _, kind := range []string{"sqlite", "mongodb"} {
		b.Run(kind, func(b *testing.B) { benchAggregation(b, kind) })
	}
}

func benchAggregation(b *testing.B, kind string) {
	p := testenv.NewPlatform(b, testenv.Options{Store: kind, Worker: true})
	tok := p.Token("crm.*")
	consumers := make([]string, 20)
	for i := range consumers {
		r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": fmt.Sprintf("agg%d-%d@example.com", round.Add(1), i)})
		if r.Status != 201 {
			b.Fatalf("consumer: %d %s", r.Status, r.Body)
		}
		consumers[i] = r.Payload()["_id"].(string)
	}
	task := func(i int) {
		if r := p.Do("POST", "/crm/tasks", tok, map[string]any{"title": "t", "consumer": consumers[i%len(consumers)]}); r.Status != 201 {
			b.Errorf("task: %d %s", r.Status, r.Body)
		}
	}
	b.ResetTimer()
	begin := time.Now()
	parallel(b.N, task)
	raw := float64(b.N) / time.Since(begin).Seconds()
	awaitApplied(b, p)
	rate := raw / 4
	steadyFrom := time.Now().UTC().Truncate(time.Millisecond)
	paced(b.N, rate, task)
	steady := float64(b.N) / time.Since(steadyFrom).Seconds()
	awaitApplied(b, p)
	b.StopTimer()
	lags := appliedLags(b, p, steadyFrom)
	if len(lags) == 0 {
		b.Fatal("no lag measured")
	}
	p50, p99 := quantile(lags, 50), quantile(lags, 99)
	b.ReportMetric(raw, "raw-writes/s")
	b.ReportMetric(steady, "steady-writes/s")
	b.ReportMetric(float64(p50.Milliseconds()), "lag-p50-ms")
	b.ReportMetric(float64(p99.Milliseconds()), "lag-p99-ms")
	fmt.Printf("aggregation %s: raw writes %.0f/s; steady load %.0f writes/s: lag from write to read model p50 %v, p99 %v (%d events)\n",
		kind, raw, steady, p50, p99, len(lags))
}

// paced runs op n times from 20 writers at about rate per second.
func paced(n int, rate float64, op func(int)) {
	ticks := make(chan int)
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ticks {
				op(i)
			}
		}()
	}
	every := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	for i := range n {
		time.Sleep(time.Until(start.Add(time.Duration(i) * every)))
		ticks <- i
	}
	close(ticks)
	wg.Wait()
}

// awaitApplied waits until every event was dispatched and applied.
func awaitApplied(b *testing.B, p *testenv.Platform) {
	waitDispatched(b, p, 10*time.Minute)
	deadline := time.Now().Add(10 * time.Minute)
	for {
		n, err := p.Store.Collection(readmodel.Inbox).Count(p.Ctx(), query.Eq("pending", true))
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d events still not applied", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// appliedLags reads the lag of every event recorded since from.
func appliedLags(b *testing.B, p *testenv.Platform, from time.Time) []time.Duration {
	docs, err := p.Store.Collection(readmodel.Inbox).Find(p.Ctx(), store.FindOptions{
		Filter: query.Field{Path: "at", Conds: []query.Cond{query.Compare{Op: query.OpGte, Value: from}}},
		Fields: []string{"at", "appliedAt"},
	})
	if err != nil {
		b.Fatal(err)
	}
	var out []time.Duration
	for _, d := range docs {
		at, _ := d["at"].(time.Time)
		applied, ok := d["appliedAt"].(time.Time)
		if ok {
			out = append(out, applied.Sub(at))
		}
	}
	return out
}
