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

	"platform/store"
	"platform/testenv"
)

const clients = 50

// BenchmarkREST compares create, get by id and a page of 25 through the
// whole HTTP stack (auth, rate limit, validation, events, envelope) with the
// same operations done with the driver on the same database.
func BenchmarkREST(b *testing.B) {
	p := testenv.NewPlatform(b, testenv.Options{})
	raw := rawCollection(b, p)
	ids := seed(b, p, raw, docsToSeed())
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
	run("create/raw", func(int) error {
		_, err := raw.InsertOne(context.Background(), bson.D{{Key: "_id", Value: store.NewID()}, {Key: "email", Value: fmt.Sprintf("raw%d@example.com", n.Add(1))},
			{Key: "first_name", Value: "Bench"}, {Key: "customer", Value: p.Customer.ID}, {Key: "createdAt", Value: time.Now()}})
		return err
	})
	run("get/api", func(int) error {
		return expect(p.Do("GET", "/crm/consumers/"+ids[rand.IntN(len(ids))], tok, nil).Status, 200)
	})
	run("get/raw", func(int) error {
		var m bson.M
		return raw.FindOne(context.Background(), bson.D{{Key: "customer", Value: p.Customer.ID}, {Key: "_id", Value: ids[rand.IntN(len(ids))]}}).Decode(&m)
	})
	run("list25/api", func(int) error {
		return expect(p.Do("GET", "/crm/consumers?limit=25&page="+strconv.Itoa(1+rand.IntN(10)), tok, nil).Status, 200)
	})
	run("list25/raw", func(int) error {
		cur, err := raw.Find(context.Background(), bson.D{{Key: "customer", Value: p.Customer.ID}},
			options.Find().SetSkip(int64(25*rand.IntN(10))).SetLimit(26))
		if err != nil {
			return err
		}
		var docs []bson.M
		return cur.All(context.Background(), &docs)
	})
	for _, op := range []string{"create", "get", "list25"} {
		a, r := results[op+"/api"], results[op+"/raw"]
		if a > 0 && r > 0 {
			fmt.Printf("%-7s api %8.1f ops/s  raw %8.1f ops/s  api/raw throughput %.2f (overhead %+.0f%%)\n", op, a, r, a/r, (r/a-1)*100)
		}
	}
}

func docsToSeed() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_DOCS")); err == nil && n > 0 {
		return n
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
