package search

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/test/infra"
)

// TestSearchLatency10k holds the index to its latency goal: p95 under 50
// ms at 10,000 pages, common words included, once the cache is warm.
func TestSearchLatency10k(t *testing.T) {
	if testing.Short() || infra.Race {
		// The race detector slows the CPU-bound scoring several times,
		// which says nothing of the goal: make bench-hub measures it.
		t.Skip("builds a 10,000 page corpus; measured without the race detector")
	}
	c := newCorpus(t)
	before := heap()
	cold := c.search(t, "the")
	t.Logf("cold first query (builds the index): %v, heap +%.1f MB", cold.Round(time.Millisecond),
		float64(heap()-before)/(1<<20))
	e := c.entry(t)
	t.Logf("index estimate %.1f MB, %d terms", float64(e.bytes)/(1<<20), len(e.sh.terms))
	var ds []time.Duration
	for i := range envInt("SEARCH_LATENCY_QUERIES", 400) {
		ds = append(ds, c.search(t, c.queries[i%len(c.queries)]))
	}
	p50, p95, p99 := percentiles(ds)
	t.Logf("%s store, %d queries: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms", c.st.Kind(), len(ds), p50, p95, p99)
	// The goal is the embedded store's.
	if c.st.Kind() == "sqlite" {
		require.Less(t, p95, 50.0, "p95 in ms")
	}
	c.afterWrites(t)
}

// afterWrites logs what a search costs right after another process's
// Put: the catch-up read of what changed.
func (c *corpus) afterWrites(t *testing.T) {
	writer := New(c.st, Options{})
	var put, search []time.Duration
	n := 20
	if c.st.Kind() != "sqlite" {
		n = 5 // FerretDB scans the collection for each: seconds apiece
	}
	for i := range n {
		start := time.Now()
		require.NoError(t, writer.Put(c.ctx, page(fmt.Sprintf("new%d", i), "Fresh page", "zyzzyva")))
		put = append(put, time.Since(start))
		search = append(search, c.search(t, "zyzzyva"))
	}
	p50, p95, _ := percentiles(put)
	s50, s95, _ := percentiles(search)
	t.Logf("after another process's Put: Put p50 %.2f ms p95 %.2f ms; next search p50 %.2f ms p95 %.2f ms", p50, p95, s50, s95)
}

// BenchmarkSearch10k reports the latency percentiles of the query mix.
func BenchmarkSearch10k(b *testing.B) {
	c := newCorpus(b)
	c.search(b, "the") // the cold build is not what is measured
	b.Run(c.st.Kind(), func(b *testing.B) {
		ds := make([]time.Duration, 0, b.N)
		for i := 0; b.Loop(); i++ {
			ds = append(ds, c.search(b, c.queries[i%len(c.queries)]))
		}
		report(b, ds)
	})
}

// BenchmarkGetByID is the baseline: one Collection.Get of a search
// document of the same store.
func BenchmarkGetByID(b *testing.B) {
	c := newCorpus(b)
	docs := c.x.docs()
	b.Run(c.st.Kind(), func(b *testing.B) {
		ds := make([]time.Duration, 0, b.N)
		for i := 0; b.Loop(); i++ {
			id := docKey("customer-bench", TypeWikiPage, fmt.Sprintf("%024x", 1+i*7919%corpusPages))
			start := time.Now()
			_, err := docs.Get(c.ctx, id)
			ds = append(ds, time.Since(start))
			require.NoError(b, err)
		}
		report(b, ds)
	})
}

func report(b *testing.B, ds []time.Duration) {
	p50, p95, p99 := percentiles(ds)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p95, "p95-ms")
	b.ReportMetric(p99, "p99-ms")
}

func (c *corpus) entry(t *testing.T) *entry {
	e, err := c.x.entry(c.ctx)
	require.NoError(t, err)
	return e
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
