package storetest

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"platform/kernel/query"
	"platform/kernel/store"
)

// parallel runs f n times concurrently.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
}

func testConcurrentIncrements(t *testing.T, s store.Store) {
	c := s.Collection("counters")
	insert(t, ctxA, c, store.Doc{"_id": "hits", "n": int64(0)})
	parallel(50, func(int) {
		if _, err := c.Update(ctxA, query.ID("hits"), store.Update{Inc: map[string]any{"n": int64(1)}}); err != nil {
			t.Errorf("increment: %v", err)
		}
	})
	if n := get(t, ctxA, c, "hits")["n"]; n != int64(50) {
		t.Errorf("after 50 concurrent increments n = %#v, want 50", n)
	}
}

// Counters are created by the first Upsert, however many race for it.
func testConcurrentUpsertCounter(t *testing.T, s store.Store) {
	c := s.Collection("counters")
	parallel(50, func(int) {
		_, err := c.Upsert(ctxA, "window", store.Update{
			Inc:         map[string]any{"n": int64(1)},
			SetOnInsert: store.Doc{"started": date("2026-01-01T00:00:00Z")},
		})
		if err != nil {
			t.Errorf("upsert: %v", err)
		}
	})
	d := get(t, ctxA, c, "window")
	if d["n"] != int64(50) {
		t.Errorf("after 50 concurrent upserts n = %#v, want 50", d["n"])
	}
}

// A decrement conditional on the stock never takes it below zero, and
// exactly as many succeed as there was stock.
func testConcurrentConditionalDecrement(t *testing.T, s store.Store) {
	c := s.Collection("coupons")
	insert(t, ctxA, c, store.Doc{"_id": "promo", "left": int64(10)})
	var won, lost atomic.Int64
	parallel(30, func(int) {
		d, err := c.Update(ctxA, and(query.ID("promo"), field("left", gt(int64(0)))),
			store.Update{Inc: map[string]any{"left": int64(-1), "redeemed": int64(1)}})
		switch {
		case err == nil:
			won.Add(1)
			if left, _ := d["left"].(int64); left < 0 {
				t.Errorf("left went to %d", left)
			}
		case errors.Is(err, store.ErrNotFound):
			lost.Add(1)
		default:
			t.Errorf("decrement: %v", err)
		}
	})
	if won.Load() != 10 || lost.Load() != 20 {
		t.Errorf("won %d, lost %d; want 10 and 20", won.Load(), lost.Load())
	}
	d := get(t, ctxA, c, "promo")
	if d["left"] != int64(0) || d["redeemed"] != int64(10) {
		t.Errorf("left %#v, redeemed %#v; want 0 and 10", d["left"], d["redeemed"])
	}
}
