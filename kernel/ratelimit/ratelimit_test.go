package ratelimit_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"platform/kernel/ratelimit"
	"platform/kernel/store"
	"platform/kernel/store/sqlitestore"
	"platform/kernel/store/storetest"
)

// A request that goes away while its lease renewal is written does not
// fail the renewal: the block is counted once, in the store and in the
// lease, and the next requests are served from it.
func TestRenewalOutlivesItsRequest(t *testing.T) {
	st, err := sqlitestore.Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	const limit, block = 100, 2                   // New leases limit/50
	l := ratelimit.New(st, limit, 1000*time.Hour) // one window for the whole test

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st.SetWriteHook(storetest.CancelAt(store.WriteWork, cancel))
	info, err := l.Take(ctx, "k")
	st.SetWriteHook(nil)
	if err != nil || !info.Allowed {
		t.Fatalf("the request cancelled during the renewal: %+v, %v; want allowed", info, err)
	}
	if n := counted(t, st); n != block {
		t.Fatalf("the store counts %d after one renewal, want %d", n, block)
	}
	for range block - 1 {
		if info, err := l.Take(context.Background(), "k"); err != nil || !info.Allowed {
			t.Fatalf("a request served from the lease: %+v, %v", info, err)
		}
	}
	if n := counted(t, st); n != block {
		t.Errorf("the store counts %d after one block's requests, want %d: a block was lost", n, block)
	}
}

// counted sums the counts of the limiter's window documents.
func counted(t *testing.T, st store.Store) int64 {
	t.Helper()
	docs, err := st.Global(ratelimit.Collection).Find(context.Background(), store.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, d := range docs {
		n += store.Int(d["count"])
	}
	return n
}
