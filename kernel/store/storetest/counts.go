package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// countCases are the contract's cases of CountAll and CountUpTo (Run runs
// them with the others).
var countCases = []struct {
	name string
	run  func(*testing.T, store.Store)
}{
	{"CountAll", testCountAll},
	{"CountAllTenants", testCountAllTenants},
	{"CountAllGlobal", testCountAllGlobal},
	{"CountUpTo", testCountUpTo},
	{"CountAllConcurrent", testCountAllConcurrent},
	{"CountAllFaults", testCountAllFaults},
}

// wantTotal: CountAll answers want, and so does the linear Count.
func wantTotal(t *testing.T, ctx context.Context, c store.Collection, want int64, what string) {
	t.Helper()
	n, err := c.CountAll(ctx)
	if err != nil {
		t.Fatalf("%s: CountAll: %v", what, err)
	}
	if linear := count(t, ctx, c, nil); n != want || linear != want {
		t.Errorf("%s: CountAll %d, Count %d; want %d", what, n, linear, want)
	}
}

// Every write that adds or removes documents keeps CountAll exact; the
// others leave it; documents written before the first CountAll count.
func testCountAll(t *testing.T, s store.Store) {
	c := s.Collection("tally")
	insert(t, ctxA, c, store.Doc{"_id": "t1", "k": int64(1)}, store.Doc{"_id": "t2", "k": int64(2)})
	wantTotal(t, ctxA, c, 2, "documents written before the first CountAll")
	insert(t, ctxA, c, store.Doc{"_id": "t3", "k": int64(3)})
	if err := c.InsertMany(ctxA, []store.Doc{{"_id": "t4"}, {"_id": "t5"}, {"_id": "t6"}}); err != nil {
		t.Fatal(err)
	}
	wantTotal(t, ctxA, c, 6, "after Insert and InsertMany")
	for _, id := range []string{"t7", "t7"} {
		if _, err := c.Upsert(ctxA, id, store.Update{Inc: map[string]any{"n": int64(1)}}); err != nil {
			t.Fatal(err)
		}
	}
	wantTotal(t, ctxA, c, 7, "after an Upsert that inserts and one that updates")
	testCountAllNeutralWrites(t, c)
	if n, err := c.Delete(ctxA, field("_id", in("t1", "t2", "t3", "nothing"))); err != nil || n != 3 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	wantTotal(t, ctxA, c, 4, "after deleting 3")
	if n, err := c.Delete(ctxA, query.ID("nothing")); err != nil || n != 0 {
		t.Fatalf("delete of nothing: %d, %v", n, err)
	}
	wantTotal(t, ctxA, c, 4, "after deleting nothing")
	// A refused InsertMany: SQLite writes none, MongoDB the documents before the duplicate.
	err := c.InsertMany(ctxA, []store.Doc{{"_id": "t8"}, {"_id": "t4"}, {"_id": "t9"}})
	wantDuplicate(t, err, []string{"_id"}, "InsertMany with a duplicate")
	want := count(t, ctxA, c, nil)
	if want != 4 && want != 5 {
		t.Fatalf("after a refused InsertMany there are %d documents", want)
	}
	wantTotal(t, ctxA, c, want, "after a refused InsertMany")
	if n, err := c.Delete(ctxA, nil); err != nil || n != want {
		t.Fatalf("delete of everything: %d, %v", n, err)
	}
	wantTotal(t, ctxA, c, 0, "after deleting everything")
}

// testCountAllNeutralWrites: updates, a replace and refused writes leave the count.
func testCountAllNeutralWrites(t *testing.T, c store.Collection) {
	t.Helper()
	if _, err := c.Update(ctxA, query.ID("t1"), store.Update{Set: store.Doc{"k": int64(10)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateMany(ctxA, nil, store.Update{Set: store.Doc{"seen": true}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Replace(ctxA, "t2", store.Doc{"k": int64(20)}); err != nil {
		t.Fatal(err)
	}
	wantDuplicate(t, c.Insert(ctxA, store.Doc{"_id": "t3"}), []string{"_id"}, "Insert of an existing id")
	_, err := c.Update(ctxA, query.ID("nothing"), store.Update{Set: store.Doc{"k": int64(1)}})
	wantErr(t, err, store.ErrNotFound, "update of nothing")
	wantTotal(t, ctxA, c, 7, "after updates, a replace and refused writes")
}

// One customer's writes never change another's count, and a call without
// a customer fails closed.
func testCountAllTenants(t *testing.T, s store.Store) {
	c := s.Collection("tally")
	insert(t, ctxA, c, store.Doc{"_id": "a1"}, store.Doc{"_id": "a2"}, store.Doc{"_id": "a3"})
	wantTotal(t, ctxB, c, 0, "B before writing")
	insert(t, ctxB, c, store.Doc{"_id": "b1"})
	wantTotal(t, ctxA, c, 3, "A after B's insert")
	wantTotal(t, ctxB, c, 1, "B after its insert")
	if _, err := c.Delete(ctxB, nil); err != nil {
		t.Fatal(err)
	}
	wantDuplicate(t, c.Insert(ctxB, store.Doc{"_id": "a1"}), []string{"_id"}, "B inserts A's id")
	wantTotal(t, ctxA, c, 3, "A after B deleted all its own")
	wantTotal(t, ctxB, c, 0, "B after deleting all its own")
	_, err := c.CountAll(context.Background())
	wantErr(t, err, tenant.ErrMissing, "CountAll without a customer")
	_, err = c.CountUpTo(context.Background(), nil, 10)
	wantErr(t, err, tenant.ErrMissing, "CountUpTo without a customer")
}

// A global collection counts all its documents.
func testCountAllGlobal(t *testing.T, s store.Store) {
	g := s.Global("tallyglobal")
	insert(t, context.Background(), g, store.Doc{"_id": "g1"}, store.Doc{"_id": "g2"})
	wantTotal(t, context.Background(), g, 2, "global")
	wantTotal(t, ctxA, g, 2, "global, with a customer in ctx")
	if _, err := g.Delete(context.Background(), query.ID("g1")); err != nil {
		t.Fatal(err)
	}
	wantTotal(t, ctxB, g, 1, "global after a delete")
}

// CountUpTo answers min(matches, limit), for the caller only, with filters
// every store evaluates itself and those some evaluate in Go.
func testCountUpTo(t *testing.T, s store.Store) {
	c := s.Collection("capped")
	var docs []store.Doc
	for i := range 30 {
		docs = append(docs, store.Doc{"_id": fmt.Sprintf("c%02d", i), "k": int64(i % 3), "sub": store.Doc{"odd": i%2 == 1}})
	}
	if err := c.InsertMany(ctxA, docs); err != nil {
		t.Fatal(err)
	}
	insert(t, ctxB, c, store.Doc{"_id": "other", "k": int64(0), "sub": store.Doc{"odd": true}})
	zero := field("k", eq(int64(0)))
	cases := []struct {
		what   string
		filter query.Expr
		limit  int64
		want   int64
	}{
		{"everything under the limit", nil, 100, 30},
		{"everything at the limit", nil, 30, 30},
		{"everything over the limit", nil, 7, 7},
		{"a filter under the limit", zero, 11, 10},
		{"a filter at the limit", zero, 10, 10},
		{"a filter over the limit", zero, 4, 4},
		{"no match", field("k", eq(int64(9))), 5, 0},
		{"a nested path", field("sub.odd", eq(true)), 100, 15},
		{"$or", or(field("k", eq(int64(1))), field("k", eq(int64(2)))), 100, 20},
		{"$ne over the limit", field("k", ne(int64(0))), 12, 12},
	}
	for _, tc := range cases {
		n, err := c.CountUpTo(ctxA, tc.filter, tc.limit)
		if err != nil || n != tc.want {
			t.Errorf("%s: CountUpTo = %d, %v; want %d", tc.what, n, err, tc.want)
		}
	}
	if _, err := c.CountUpTo(ctxA, nil, 0); err == nil {
		t.Errorf("CountUpTo with limit 0 answered no error")
	}
}

// Concurrent inserts, upserts and deletes end with an exact count.
func testCountAllConcurrent(t *testing.T, s store.Store) {
	c := s.Collection("busy")
	var seed []store.Doc
	for i := range 20 {
		seed = append(seed, store.Doc{"_id": fmt.Sprintf("old%02d", i)})
	}
	if err := c.InsertMany(ctxA, seed); err != nil {
		t.Fatal(err)
	}
	wantTotal(t, ctxA, c, 20, "seeded")
	var failed atomic.Int64
	parallel(60, func(i int) {
		var err error
		switch i % 3 {
		case 0:
			err = c.Insert(ctxA, store.Doc{"_id": fmt.Sprintf("new%02d", i)})
		case 1:
			_, err = c.Delete(ctxA, query.ID(fmt.Sprintf("old%02d", i/3)))
		default:
			_, err = c.Upsert(ctxA, "shared", store.Update{Inc: map[string]any{"n": int64(1)}})
		}
		if err != nil {
			failed.Add(1)
			t.Errorf("write %d: %v", i, err)
		}
	})
	if failed.Load() == 0 {
		wantTotal(t, ctxA, c, 20+20-20+1, "after 20 inserts, 20 deletes and 20 upserts of one id")
	}
}

// A fault at any point of a write (the caller's context cancelled, a
// driver error, a panic) leaves CountAll equal to the documents there: the
// count changes exactly when the write took effect. The cases include the
// second statement of a write, where SQLite changes the count.
func testCountAllFaults(t *testing.T, s store.Store) {
	h := hookable(t, s)
	c := s.Collection("faultcounts")
	insert(t, ctxA, c, store.Doc{"_id": "warm-up"})
	if _, err := c.CountAll(ctxA); err != nil {
		t.Fatal(err)
	}
	for i, wp := range writePoints {
		for nth := 1; nth <= 2; nth++ {
			if nth == 2 && wp.p != store.WriteWork {
				continue
			}
			name := fmt.Sprintf("%s%d", wp.name, nth)
			t.Run(name, func(t *testing.T) {
				for _, fault := range faults() {
					for _, op := range countedWrites(c, fmt.Sprintf("f%d-%d-%s", i, nth, fault.name)) {
						faultedCount(t, c, h, wp.p, nth, fault, op)
					}
				}
			})
		}
	}
}

type countedWrite struct {
	name  string
	setup func() error // before the fault is installed
	do    func(ctx context.Context) error
}

// countedWrites are an insert, an upsert that inserts and a delete, each
// of a document of its own.
func countedWrites(c store.Collection, id string) []countedWrite {
	none := func() error { return nil }
	return []countedWrite{
		{"insert", none, func(ctx context.Context) error { return c.Insert(ctx, store.Doc{"_id": id + "-i"}) }},
		{"upsert", none, func(ctx context.Context) error {
			_, err := c.Upsert(ctx, id+"-u", store.Update{Set: store.Doc{"v": int64(1)}})
			return err
		}},
		{"delete", func() error { return c.Insert(ctxA, store.Doc{"_id": id + "-d"}) }, func(ctx context.Context) error {
			_, err := c.Delete(ctx, query.ID(id+"-d"))
			return err
		}},
	}
}

type fault struct {
	name string
	act  func(cancel context.CancelFunc) func(ctx context.Context, err error) error
}

func faults() []fault {
	injected := errors.New("injected driver failure")
	return []fault{
		{"cancel", func(cancel context.CancelFunc) func(context.Context, error) error { return cancelling(cancel) }},
		{"error", func(context.CancelFunc) func(context.Context, error) error {
			return func(context.Context, error) error { return injected }
		}},
		{"panic", func(context.CancelFunc) func(context.Context, error) error {
			return func(context.Context, error) error { panic("injected panic") }
		}},
	}
}

// faultedCount runs op with the fault at the nth time a write reaches p
// and checks that CountAll still equals the documents there.
func faultedCount(t *testing.T, c store.Collection, h Hookable, p store.WritePoint, nth int, f fault, op countedWrite) {
	t.Helper()
	if err := op.setup(); err != nil {
		t.Fatalf("%s: setup: %v", op.name, err)
	}
	ctx, cancel := context.WithCancel(ctxA)
	defer cancel()
	seen := 0
	act := f.act(cancel)
	h.SetWriteHook(func(at store.WritePoint, ctx context.Context, err error) error {
		if at != p {
			return err
		}
		if seen++; seen != nth {
			return err
		}
		return act(ctx, err)
	})
	func() {
		defer func() { _ = recover() }()
		_ = op.do(ctx)
	}()
	h.SetWriteHook(nil)
	n, err := c.CountAll(ctxA)
	if linear := count(t, ctxA, c, nil); err != nil || n != linear {
		t.Errorf("%s with a %s at point %d (#%d): CountAll %d (%v), but %d documents", op.name, f.name, p, nth, n, err, linear)
	}
}
