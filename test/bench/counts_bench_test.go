package bench

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/test/testenv"
)

// BenchmarkCounts measures list totals as the collection grows (issue 19,
// docs/counts.md), one client at a time, on both stores in one run: at
// each size, a sorted page of 25 (no total), the same page with
// count=true (the store's counter), a filtered page with count=true
// (capped at PLATFORM_COUNT_CAP, and the filter matches every record, the
// worst case), and in the store itself the counter (CountAll) against the
// linear count lists used before (Count). Sizes: BENCH_COUNT_SIZES
// (default 10000,100000).
func BenchmarkCounts(b *testing.B) {
	for _, kind := range []string{"sqlite", "mongodb"} {
		b.Run(kind, func(b *testing.B) { benchCounts(b, kind) })
	}
}

func benchCounts(b *testing.B, kind string) {
	p := testenv.NewPlatform(b, testenv.Options{Store: kind})
	tok := p.Token("crm.*")
	c := p.Store.Collection("consumers")
	ctx := p.Ctx()
	seeded := 0
	for _, size := range countSizes() {
		t0 := time.Now()
		seedCountedConsumers(b, p, seeded, size)
		seeded = size
		fmt.Printf("%-7s seeded %d consumers in %.1f s\n", kind, size, time.Since(t0).Seconds())
		// MongoDB creates a missing counter with a recount: once, and not
		// part of what the runs below measure.
		t0 = time.Now()
		if err := wantCount(c.CountAll(ctx))(size); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("%-7s first CountAll at %d: %.1f ms\n", kind, size, ms(time.Since(t0)))
		results := map[string]float64{}
		run := func(name string, op func() error) {
			b.Run(fmt.Sprintf("%d/%s", size, name), func(b *testing.B) { results[name] = latency(b, op) })
		}
		get := func(query string, total int) func() error {
			return func() error { return expectTotal(p.Do("GET", "/crm/consumers?"+query, tok, nil), total) }
		}
		run("page-sorted/api", get("limit=25&sort=-createdAt", -1))
		run("page-count/api", get("limit=25&sort=-createdAt&count=true", size))
		run("page-count-filtered/api", get("limit=25&sort=-createdAt&count=true&_status=lead", min(size, 10_000)))
		run("countall/store", func() error { return wantCount(c.CountAll(ctx))(size) })
		run("count-linear/store", func() error { return wantCount(c.Count(ctx, nil))(size) })
		fmt.Printf("%-7s %7d records: sorted page %.2f ms, page+count=true %.2f ms, page+filtered count %.2f ms; "+
			"counter %.3f ms against the linear count %.2f ms (%.0fx)\n", kind, size,
			results["page-sorted/api"], results["page-count/api"], results["page-count-filtered/api"],
			results["countall/store"], results["count-linear/store"], results["count-linear/store"]/results["countall/store"])
	}
}

func countSizes() []int {
	sizes := []int{10_000, 100_000}
	if v := os.Getenv("BENCH_COUNT_SIZES"); v != "" {
		sizes = nil
		for _, s := range strings.Split(v, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
				sizes = append(sizes, n)
			}
		}
	}
	sort.Ints(sizes)
	return sizes
}

// seedCountedConsumers adds consumers of the test customer, from the from-th to
// the to-th, in the API's own shape, through the store (so its counter
// counts them) in batches.
func seedCountedConsumers(b *testing.B, p *testenv.Platform, from, to int) {
	c := p.Store.Collection("consumers")
	now := time.Now().UTC().Truncate(time.Millisecond)
	const batch = 5000
	for start := from; start < to; start += batch {
		docs := make([]store.Doc, 0, batch)
		for i := start; i < min(start+batch, to); i++ {
			at := now.Add(time.Duration(i) * time.Millisecond)
			docs = append(docs, store.Doc{"_id": store.NewID(), "email": fmt.Sprintf("seed%d@example.com", i),
				"first_name": "Seed", "_status": "lead", "createdAt": at, "updatedAt": at})
		}
		if err := c.InsertMany(p.Ctx(), docs); err != nil {
			b.Fatal(err)
		}
	}
}

// latency runs op b.N times, one after the other, and reports the mean and
// p50 in milliseconds; it answers the mean.
func latency(b *testing.B, op func() error) float64 {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	mean := ms(sum) / float64(len(lat))
	b.ReportMetric(mean, "ms/op")
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	return mean
}

// expectTotal checks a list answer: 200, and meta.total (when want >= 0).
func expectTotal(r *testenv.Resp, want int) error {
	if err := expect(r.Status, 200); err != nil {
		return err
	}
	if want < 0 {
		return nil
	}
	if got, _ := r.Meta()["total"].(float64); int(got) != want {
		return fmt.Errorf("meta.total %v, want %d", r.Meta()["total"], want)
	}
	return nil
}

func wantCount(n int64, err error) func(want int) error {
	return func(want int) error {
		if err != nil {
			return err
		}
		if n != int64(want) {
			return fmt.Errorf("count %d, want %d", n, want)
		}
		return nil
	}
}
