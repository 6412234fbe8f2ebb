package mongostore_test

import (
	"context"
	"testing"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/tenant"
)

func wantCountAll(t *testing.T, c store.Collection, ctx context.Context, want int64, what string) {
	t.Helper()
	if n, err := c.CountAll(ctx); err != nil || n != want {
		t.Errorf("%s: CountAll = %d, %v; want %d", what, n, err, want)
	}
}

// A counter that drifted (as after a crash between a write and its $inc)
// is what CountAll answers until Recount rewrites it; a missing one is
// recounted by the next CountAll, writes in between included.
func TestCounterRepair(t *testing.T) {
	s := openForTest(t)
	ctxA := tenant.WithCustomer(context.Background(), "customer-a")
	ctxB := tenant.WithCustomer(context.Background(), "customer-b")
	c := s.Collection("people")
	for _, ctx := range []context.Context{ctxA, ctxA, ctxA, ctxB} {
		if err := c.Insert(ctx, store.Doc{"n": int64(1)}); err != nil {
			t.Fatal(err)
		}
	}
	wantCountAll(t, c, ctxA, 3, "A, first CountAll (a recount)")
	wantCountAll(t, c, ctxB, 1, "B, first CountAll (a recount)")
	counters := s.Global(mongostore.CountsCollection)
	drift := query.AllOf(query.Eq("collection", "people"), query.Eq("customer", "customer-a"))
	if n, err := counters.UpdateMany(ctxA, drift, store.Update{Set: store.Doc{"n": int64(50)}}); err != nil || n != 1 {
		t.Fatalf("drift the counter: %d, %v", n, err)
	}
	wantCountAll(t, c, ctxA, 50, "A, drifted")
	if n, err := s.Recount(context.Background()); err != nil || n != 1 {
		t.Fatalf("Recount = %d, %v; want 1 counter changed", n, err)
	}
	wantCountAll(t, c, ctxA, 3, "A, repaired")
	wantCountAll(t, c, ctxB, 1, "B, untouched")

	if n, err := counters.Delete(ctxA, drift); err != nil || n != 1 {
		t.Fatalf("delete the counter: %d, %v", n, err)
	}
	if err := c.Insert(ctxA, store.Doc{"n": int64(2)}); err != nil {
		t.Fatal(err)
	}
	wantCountAll(t, c, ctxA, 4, "A, counter missing")
	if err := c.Insert(ctxA, store.Doc{"n": int64(3)}); err != nil {
		t.Fatal(err)
	}
	wantCountAll(t, c, ctxA, 5, "A, counter recounted and kept")
}

// A counter driven below zero (a delete racing with the recount that
// created it) answers 0, never a negative total, until Recount fixes it.
func TestCounterBelowZero(t *testing.T) {
	s := openForTest(t)
	ctx := tenant.WithCustomer(context.Background(), "customer-a")
	c := s.Collection("shrinking")
	if err := c.Insert(ctx, store.Doc{"n": int64(1)}); err != nil {
		t.Fatal(err)
	}
	wantCountAll(t, c, ctx, 1, "first CountAll (a recount)")
	mine := query.AllOf(query.Eq("collection", "shrinking"), query.Eq("customer", "customer-a"))
	if n, err := s.Global(mongostore.CountsCollection).UpdateMany(ctx, mine, store.Update{Set: store.Doc{"n": int64(-3)}}); err != nil || n != 1 {
		t.Fatalf("drift the counter: %d, %v", n, err)
	}
	wantCountAll(t, c, ctx, 0, "below zero")
	if n, err := s.Recount(context.Background()); err != nil || n != 1 {
		t.Fatalf("Recount = %d, %v; want 1 counter changed", n, err)
	}
	wantCountAll(t, c, ctx, 1, "repaired")
}
