// Package bench measures the REST stack against the raw store in one run.
// It is the one place outside store/mongostore that uses the MongoDB driver
// directly: the raw side of the comparison.
package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"platform/kernel/store"
	"platform/test/testenv"
)

const clients = 50

// BenchmarkREST compares create, get by id and a page of 25 through the
// whole HTTP stack (auth, rate limit, validation, events, envelope) with the
// same operations done directly on the same store, for both stores: on
// MongoDB (FerretDB here) the raw side is the driver; on the embedded SQLite
// store it is the store's own calls.
func BenchmarkREST(b *testing.B) {
	for _, kind := range []string{"sqlite", "mongodb"} {
		b.Run(kind, func(b *testing.B) { benchREST(b, kind) })
	}
}

func benchREST(b *testing.B, kind string) {
	p := testenv.NewPlatform(b, testenv.Options{Store: kind})
	raw := newRaw(b, p, kind)
	ids := raw.seed(b, docsToSeed(kind))
	tok := p.Token("crm.*")
	results := map[string]float64{}
	run := func(name string, op func(i int) error) {
		b.Run(name, func(b *testing.B) { results[name] = measure(b, op) })
	}
	var n atomic.Int64
	run("create/api", func(int) error {
		r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": fmt.Sprintf("api%d@example.com", n.Add(1)), "first_name": "Bench"})
		return expect(r.Status, 201)
	})
	run("create/raw", func(int) error { return raw.create(fmt.Sprintf("raw%d@example.com", n.Add(1))) })
	run("get/api", func(int) error {
		return expect(p.Do("GET", "/crm/consumers/"+ids[rand.IntN(len(ids))], tok, nil).Status, 200)
	})
	run("get/raw", func(int) error { return raw.get(ids[rand.IntN(len(ids))]) })
	run("list25/api", func(int) error {
		return expect(p.Do("GET", "/crm/consumers?limit=25&sort=-createdAt&page="+strconv.Itoa(1+rand.IntN(10)), tok, nil).Status, 200)
	})
	run("list25/raw", func(int) error { return raw.list(rand.IntN(10)) })
	for _, op := range []string{"create", "get", "list25"} {
		a, r := results[op+"/api"], results[op+"/raw"]
		if a > 0 && r > 0 {
			fmt.Printf("%-7s %-7s api %8.1f ops/s  raw %8.1f ops/s  api/raw throughput %.2f (overhead %+.0f%%)\n", kind, op, a, r, a/r, (r/a-1)*100)
		}
	}
}

// rawOps are the benchmark's direct store operations.
type rawOps struct {
	create func(email string) error
	get    func(id string) error
	list   func(page int) error
	seed   func(b *testing.B, n int) []string
}

func newRaw(b *testing.B, p *testenv.Platform, kind string) *rawOps {
	if kind == "sqlite" {
		return storeOps(p)
	}
	return driverOps(b, p)
}

// storeOps call the embedded store directly (no HTTP, auth or events).
func storeOps(p *testenv.Platform) *rawOps {
	ctx := p.Ctx()
	c := p.Store.Collection("consumers")
	return &rawOps{
		create: func(email string) error {
			now := time.Now().UTC()
			return c.Insert(ctx, store.Doc{"_id": store.NewID(), "email": email, "first_name": "Bench", "createdAt": now, "updatedAt": now})
		},
		get: func(id string) error { _, err := c.Get(ctx, id); return err },
		list: func(page int) error {
			_, err := c.Find(ctx, store.FindOptions{Sort: []store.SortField{{Field: "createdAt", Desc: true}}, Skip: int64(25 * page), Limit: 26})
			return err
		},
		seed: func(b *testing.B, n int) []string {
			ids := make([]string, n)
			docs := make([]store.Doc, n)
			now := time.Now().UTC()
			for i := range docs {
				ids[i] = store.NewID()
				docs[i] = store.Doc{"_id": ids[i], "email": fmt.Sprintf("seed%d@example.com", i), "first_name": "Seed", "_status": "lead", "createdAt": now, "updatedAt": now}
			}
			if err := c.InsertMany(ctx, docs); err != nil {
				b.Fatal(err)
			}
			return ids
		},
	}
}

// driverOps use the MongoDB driver on the platform's database.
func driverOps(b *testing.B, p *testenv.Platform) *rawOps {
	raw := rawCollection(b, p)
	cust := p.Customer.ID
	bg := context.Background()
	return &rawOps{
		create: func(email string) error {
			_, err := raw.InsertOne(bg, bson.D{{Key: "_id", Value: store.NewID()}, {Key: "email", Value: email},
				{Key: "first_name", Value: "Bench"}, {Key: "customer", Value: cust}, {Key: "createdAt", Value: time.Now()}})
			return err
		},
		get: func(id string) error {
			var m bson.M
			return raw.FindOne(bg, bson.D{{Key: "customer", Value: cust}, {Key: "_id", Value: id}}).Decode(&m)
		},
		list: func(page int) error {
			cur, err := raw.Find(bg, bson.D{{Key: "customer", Value: cust}},
				options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}}).SetSkip(int64(25*page)).SetLimit(26))
			if err != nil {
				return err
			}
			var docs []bson.M
			return cur.All(bg, &docs)
		},
		seed: func(b *testing.B, n int) []string { return seed(b, p, raw, n) },
	}
}

// docsToSeed: 10,000 consumers on the embedded store (the goal is
// stated for that size); FerretDB scans per query, so it gets 1,000 unless
// BENCH_DOCS says otherwise.
func docsToSeed(kind string) int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_DOCS")); err == nil && n > 0 {
		return n
	}
	if kind == "sqlite" {
		return 10000
	}
	return 1000
}

// measure runs op from 50 concurrent clients and reports throughput and latency percentiles.
func measure(b *testing.B, op func(i int) error) float64 {
	b.SetParallelism((clients + 1) / 2)
	var mu sync.Mutex
	var lat []time.Duration
	var failed atomic.Int64
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		i := 0
		for pb.Next() {
			t0 := time.Now()
			if err := op(i); err != nil {
				failed.Add(1)
			}
			mine = append(mine, time.Since(t0))
			i++
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d operations failed", f, len(lat))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ops := float64(len(lat)) / elapsed.Seconds()
	b.ReportMetric(ops, "ops/s")
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	return ops
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func expect(got, want int) error {
	if got != want {
		return fmt.Errorf("status %d, want %d", got, want)
	}
	return nil
}

func rawCollection(b *testing.B, p *testenv.Platform) *mongo.Collection {
	c, err := mongo.Connect(options.Client().ApplyURI(testenv.Infra(b).MongoURI).SetMaxPoolSize(200))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c.Database(p.Store.(interface{ DatabaseName() string }).DatabaseName()).Collection("consumers")
}

// seed inserts n consumers of the test customer in the API's own shape.
func seed(b *testing.B, p *testenv.Platform, raw *mongo.Collection, n int) []string {
	ids := make([]string, n)
	docs := make([]any, n)
	now := time.Now().UTC()
	for i := range docs {
		ids[i] = store.NewID()
		docs[i] = bson.D{{Key: "_id", Value: ids[i]}, {Key: "email", Value: fmt.Sprintf("seed%d@example.com", i)},
			{Key: "first_name", Value: "Seed"}, {Key: "_status", Value: "lead"}, {Key: "customer", Value: p.Customer.ID},
			{Key: "createdAt", Value: now}, {Key: "updatedAt", Value: now}}
	}
	if _, err := raw.InsertMany(context.Background(), docs); err != nil {
		b.Fatal(err)
	}
	return ids
}
