package sandbox

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/tenant"
)

var trivial = Request{Kind: KindJSFunction, Code: "return input.a + 1", Input: []byte(`{"a":1}`)}

func customer(id string) context.Context {
	return tenant.WithCustomer(context.Background(), id)
}

// hog makes n calls of endless loops for customer, each stopped at
// limit, and returns a function that cancels those still running or
// waiting and waits for them (also run at cleanup, before the pool
// closes).
func hog(t *testing.T, p *Pool, id string, n int, limit time.Duration) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(customer(id))
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, _ = p.Run(ctx, Request{Kind: KindJSFunction, Code: "while (true) {}", TimeoutMs: int(limit.Milliseconds())})
		})
	}
	stop = sync.OnceFunc(func() { cancel(); wg.Wait() })
	t.Cleanup(stop)
	return stop
}

// waitForLane waits until the customer's calls hold and wait for the
// given numbers of children: the hook that orders a test's calls.
func waitForLane(t *testing.T, p *Pool, id string, held, waiting int) {
	t.Helper()
	require.Eventually(t, func() bool {
		p.lanes.mu.Lock()
		defer p.lanes.mu.Unlock()
		return p.lanes.held[id] == held && len(p.lanes.queue[id]) == waiting
	}, 30*time.Second, 5*time.Millisecond, "lane %s never held %d and queued %d calls", id, held, waiting)
}

// timedRun runs a trivial call and says how long it took.
func timedRun(t *testing.T, ctx context.Context, p *Pool) time.Duration {
	t.Helper()
	start := time.Now()
	res, err := p.Run(ctx, trivial)
	require.NoError(t, err)
	ok(t, res, `2`)
	return time.Since(start)
}

// One tenant floods a pool of two with more endless loops than it has
// children: it holds one child, its other calls queue, and another
// tenant's call (or one made without a tenant) runs at once. Without the
// cap it would wait behind three rounds of the flood.
func TestOneTenantCannotStarveAnother(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 2, QueueTimeout: time.Minute})
	const limit = 3 * time.Second
	hog(t, p, "tenant-a", 6, limit)
	waitForLane(t, p, "tenant-a", 1, 5)
	took := timedRun(t, customer("tenant-b"), p)
	assert.Less(t, took, limit+margin, "another tenant's call waited behind the flood")
	took = timedRun(t, context.Background(), p)
	assert.Less(t, took, limit+margin, "a call without a tenant waited behind the flood")
	se, err := p.Compile(context.Background(), KindJSFunction, "return 1")
	require.NoError(t, err)
	assert.Nil(t, se)
}

// Two tenants flood a pool of two: each holds one child and queues more.
// A third tenant's call gets the first child that frees, within one
// call's time limit, not after the calls queued before it.
func TestWaitingTenantsTakeTurns(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 2, QueueTimeout: time.Minute})
	const limit = 2 * time.Second
	hog(t, p, "tenant-a", 4, limit)
	waitForLane(t, p, "tenant-a", 1, 3)
	hog(t, p, "tenant-c", 4, limit)
	waitForLane(t, p, "tenant-c", 1, 3)
	took := timedRun(t, customer("tenant-b"), p)
	assert.Less(t, took, limit+margin, "the call waited for more than the first free child")
}

// A call that gets no child within QueueTimeout fails with ErrBusy after
// that bound, whichever tenant it is of (a pool of one has nothing to
// share); waiting calls that gave up leave the pool as it was.
func TestQueueWaitIsBounded(t *testing.T) {
	const bound = 300 * time.Millisecond
	p := newPool(t, PoolOptions{Size: 1, QueueTimeout: bound})
	stop := hog(t, p, "tenant-a", 1, 20*time.Second)
	waitForLane(t, p, "tenant-a", 1, 0)
	for _, ctx := range []context.Context{customer("tenant-a"), customer("tenant-b")} {
		start := time.Now()
		_, err := p.Run(ctx, trivial)
		took := time.Since(start)
		require.ErrorIs(t, err, ErrBusy)
		var busy *BusyError
		require.ErrorAs(t, err, &busy)
		assert.Equal(t, bound, busy.Waited)
		assert.GreaterOrEqual(t, took, bound)
		assert.Less(t, took, bound+margin)
	}
	_, err := p.Compile(customer("tenant-b"), KindJSFunction, "return 1")
	require.ErrorIs(t, err, ErrBusy)
	stop()
	assert.Less(t, timedRun(t, customer("tenant-b"), p), time.Second, "the pool serves once the hog is gone")
}

// Close ends the calls waiting for a child, not only the running ones.
func TestCloseEndsWaitingCalls(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1, QueueTimeout: time.Minute})
	hog(t, p, "tenant-a", 1, 20*time.Second)
	waitForLane(t, p, "tenant-a", 1, 0)
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(customer("tenant-b"), trivial)
		done <- err
	}()
	waitForLane(t, p, "tenant-b", 0, 1)
	require.NoError(t, p.Close())
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting call did not end with Close")
	}
}

// The order in which lanes get freed slots, without children: a lane
// new to the queue first, then the lane served least recently; within a
// lane, oldest first; a lane at its cap waits even when a slot is free.
func TestLanesServeTheLeastRecentlyServed(t *testing.T) {
	l := newLanes(2, 1)
	require.Nil(t, l.join("a"), "a free slot is taken at once")
	require.Nil(t, l.join("c"))
	a2, a3, c2, b1 := l.join("a"), l.join("a"), l.join("c"), l.join("b")
	granted := func(ws ...*waiter) []bool {
		var got []bool
		for _, w := range ws {
			select {
			case <-w.ready:
				got = append(got, true)
			default:
				got = append(got, false)
			}
		}
		return got
	}
	l.leave("a")
	assert.Equal(t, []bool{false, false, false, true}, granted(a2, a3, c2, b1), "b never served: first, although last in line")
	l.leave("c")
	assert.Equal(t, []bool{true, false, false}, granted(a2, a3, c2), "a was served before c")
	l.leave("b")
	assert.Equal(t, []bool{false, true}, granted(a3, c2), "a is at its cap")
	l.leave("a")
	assert.Equal(t, []bool{true}, granted(a3))
	a4 := l.join("a")
	l.leave("c")
	assert.Equal(t, []bool{false}, granted(a4), "a is at its cap although a slot is free")
	assert.Equal(t, 1, l.free)
}
