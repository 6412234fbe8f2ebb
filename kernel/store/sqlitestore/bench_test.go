package sqlitestore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// The targets, at 50 clients on 10,000 documents: get by id
// ≥ 5,000/s, a page of 25 sorted by an indexed field ≥ 1,000/s, create
// ≥ 1,500/s. Run with: go test -run '^$' -bench . ./store/sqlitestore/

const (
	benchClients = 50
	benchDocs    = 10000
)

var (
	benchOnce  sync.Once
	benchDir   string
	benchShare *Store
	benchErr   error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchShare != nil {
		benchShare.Close(context.Background())
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

var benchIndexes = []store.Index{
	{Name: "created", Keys: []store.SortField{{Field: "createdAt", Desc: true}}},
	{Name: "status", Keys: []store.SortField{{Field: "status"}}},
	{Name: "email", Keys: []store.SortField{{Field: "email"}}, Unique: true},
}

func benchDoc(i int) store.Doc {
	return store.Doc{
		"_id":       fmt.Sprintf("%024x", i),
		"name":      fmt.Sprintf("Customer %d", i),
		"email":     fmt.Sprintf("user%d@example.com", i),
		"status":    []string{"new", "paid", "sent", "done"}[i%4],
		"createdAt": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second),
		"total":     float64(i%1000) + 0.99,
		"items":     int64(i % 7),
		"address":   store.Doc{"city": "Lyon", "zip": fmt.Sprintf("690%02d", i%100)},
		"note":      "a few words of free text to give the document a realistic size",
	}
}

// sharedBenchStore is one seeded store for the read benchmarks.
func sharedBenchStore(b *testing.B) *Store {
	benchOnce.Do(func() {
		if benchDir, benchErr = os.MkdirTemp("", "sqlitestore-bench"); benchErr != nil {
			return
		}
		benchShare, benchErr = seededStore(filepath.Join(benchDir, "bench.db"))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchShare
}

func seededStore(path string) (*Store, error) {
	s, err := Open(path)
	if err != nil {
		return nil, err
	}
	if err := s.EnsureIndexes(ctxA, "orders", true, benchIndexes); err != nil {
		return nil, err
	}
	c := s.Collection("orders")
	for start := 0; start < benchDocs; start += 500 {
		batch := make([]store.Doc, 0, 500)
		for i := start; i < start+500; i++ {
			batch = append(batch, benchDoc(i))
		}
		if err := c.InsertMany(ctxA, batch); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// runClients runs op from benchClients goroutines and reports ops/s.
func runClients(b *testing.B, op func(r *rand.Rand) error) {
	b.SetParallelism((benchClients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		for pb.Next() {
			if err := op(r); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkGetByID(b *testing.B) {
	c := sharedBenchStore(b).Collection("orders")
	runClients(b, func(r *rand.Rand) error {
		_, err := c.Get(ctxA, fmt.Sprintf("%024x", r.IntN(benchDocs)))
		return err
	})
}

func BenchmarkSortedPage(b *testing.B) {
	c := sharedBenchStore(b).Collection("orders")
	runClients(b, func(r *rand.Rand) error {
		docs, err := c.Find(ctxA, store.FindOptions{
			Sort:  []store.SortField{{Field: "createdAt", Desc: true}},
			Skip:  int64(25 * r.IntN(8)),
			Limit: 25,
		})
		if err == nil && len(docs) != 25 {
			err = fmt.Errorf("page of %d", len(docs))
		}
		return err
	})
}

func BenchmarkFilteredSortedPage(b *testing.B) {
	c := sharedBenchStore(b).Collection("orders")
	runClients(b, func(r *rand.Rand) error {
		_, err := c.Find(ctxA, store.FindOptions{
			Filter: query.Eq("status", []string{"new", "paid", "sent", "done"}[r.IntN(4)]),
			Sort:   []store.SortField{{Field: "createdAt", Desc: true}},
			Limit:  25,
		})
		return err
	})
}

func BenchmarkCountFiltered(b *testing.B) {
	c := sharedBenchStore(b).Collection("orders")
	runClients(b, func(r *rand.Rand) error {
		n, err := c.Count(ctxA, query.Eq("status", []string{"new", "paid", "sent", "done"}[r.IntN(4)]))
		if err == nil && n != benchDocs/4 {
			err = fmt.Errorf("count %d", n)
		}
		return err
	})
}

func BenchmarkCreate(b *testing.B) {
	s, err := seededStore(filepath.Join(b.TempDir(), "create.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(context.Background())
	c := s.Collection("orders")
	var next sync.Mutex
	n := benchDocs
	runClients(b, func(*rand.Rand) error {
		next.Lock()
		n++
		i := n
		next.Unlock()
		return c.Insert(ctxA, benchDoc(i))
	})
}

func BenchmarkIncrement(b *testing.B) {
	c := sharedBenchStore(b).Collection("counters")
	runClients(b, func(r *rand.Rand) error {
		_, err := c.Upsert(ctxA, fmt.Sprintf("window-%d", r.IntN(100)), store.Update{Inc: map[string]any{"n": int64(1)}})
		return err
	})
}
