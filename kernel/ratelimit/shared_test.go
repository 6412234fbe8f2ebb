package ratelimit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"platform/kernel/ratelimit"
	"platform/kernel/store/mongostore"
	"platform/test/infra"
)

// Replicas on separate connections to one FerretDB (the store where a
// counter's $inc is not atomic across connections) grant exactly the
// limit in a window, however their requests interleave, and every block
// they claimed holds requests they granted.
func TestReplicasShareTheLimitExactly(t *testing.T) {
	t.Parallel()
	first := infra.MongoStore(t)
	second, err := mongostore.Open(context.Background(), infra.Infra(t).MongoURI, first.DatabaseName())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close(context.Background()) })
	const limit, callers, calls = 100, 16, 20 // 320 calls for 100
	replicas := []*ratelimit.Limiter{
		ratelimit.New(first, limit, 1000*time.Hour), ratelimit.New(second, limit, 1000*time.Hour),
		ratelimit.New(first, limit, 1000*time.Hour), ratelimit.New(second, limit, 1000*time.Hour),
	}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range calls {
				d, err := replicas[(c+i)%len(replicas)].Take(context.Background(), "customer")
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != limit { // one window for the whole test
		t.Errorf("%d replicas granted %d calls of a limit of %d", len(replicas), got, limit)
	}
	if n := counted(t, first); n != limit {
		t.Errorf("the claimed blocks count %d, want %d", n, limit)
	}
}
