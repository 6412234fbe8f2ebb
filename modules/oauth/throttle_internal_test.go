package oauth

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/kernel/store/sqlitestore"
)

// throttleClock is a Throttle on a real store with a clock the test moves.
type throttleClock struct {
	*Throttle
	t   *testing.T
	now time.Time
}

func newThrottleClock(t *testing.T) *throttleClock {
	st, err := sqlitestore.Open(filepath.Join(t.TempDir(), "store.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	tc := &throttleClock{t: t, now: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)}
	tc.Throttle = &Throttle{Store: st, FreePair: 3, FreeAddress: 20, MaxDelay: time.Minute, Forget: 15 * time.Minute,
		Now: func() time.Time { return tc.now }}
	return tc
}

// fail is one sign-in attempt with a wrong password: the wait it was
// refused with, 0 when it was admitted (and so counted as a failure).
func (tc *throttleClock) fail(email, addr string) time.Duration {
	tc.t.Helper()
	_, wait, err := tc.admit(context.Background(), tc.keys("cust", email, addr))
	require.NoError(tc.t, err)
	return wait
}

// succeed is one attempt with the right password; false if refused.
func (tc *throttleClock) succeed(email, addr string) bool {
	tc.t.Helper()
	claims, wait, err := tc.admit(context.Background(), tc.keys("cust", email, addr))
	require.NoError(tc.t, err)
	if wait > 0 {
		return false
	}
	require.NoError(tc.t, tc.succeeded(context.Background(), claims))
	return true
}

// Repeated failures for one account from one address: three are free,
// then each failure makes the pair wait 1 s, 2 s, 4 s ... up to a minute;
// refused attempts (even with the right password) do not count. The
// account's owner at another address is not delayed at all, and the
// counts are forgotten 15 minutes after the last failure.
func TestThrottleDelaysGrowPerAccountAndAddress(t *testing.T) {
	tc := newThrottleClock(t)
	const victim, attacker, owner = "victim@example.com", "203.0.113.9", "198.51.100.7"
	for i := range 4 {
		require.Zero(t, tc.fail(victim, attacker), "failure %d is free", i+1)
	}
	for _, want := range []time.Duration{1, 2, 4, 8, 16, 32, 60, 60} {
		want *= time.Second
		require.Equal(t, want, tc.fail(victim, attacker))
		require.False(t, tc.succeed(victim, attacker), "the right password waits too")
		require.True(t, tc.succeed(victim, owner), "the owner elsewhere is not delayed")
		tc.now = tc.now.Add(want - time.Millisecond)
		require.Equal(t, time.Millisecond, tc.fail(victim, attacker), "refused attempts do not count")
		tc.now = tc.now.Add(time.Millisecond)
		require.Zero(t, tc.fail(victim, attacker))
	}
	tc.now = tc.now.Add(15*time.Minute + time.Second)
	for i := range 4 {
		require.Zero(t, tc.fail(victim, attacker), "forgotten: failure %d is free again", i+1)
	}
	require.Equal(t, time.Second, tc.fail(victim, attacker))
}

// Failures for many accounts from one address: twenty are free, then the
// address waits for every account, and other addresses do not.
func TestThrottleSlowsSprayingFromOneAddress(t *testing.T) {
	tc := newThrottleClock(t)
	const sprayer = "203.0.113.77"
	for i := range 21 {
		require.Zero(t, tc.fail(fmt.Sprintf("user%d@example.com", i), sprayer))
	}
	require.Equal(t, time.Second, tc.fail("fresh@example.com", sprayer))
	require.False(t, tc.succeed("fresh@example.com", sprayer))
	require.True(t, tc.succeed("fresh@example.com", "198.51.100.7"))
	tc.now = tc.now.Add(time.Second)
	require.Zero(t, tc.fail("fresh@example.com", sprayer))
	require.Equal(t, 2*time.Second, tc.fail("other@example.com", sprayer))
}

// A successful sign-in clears its pair's failures and does not count
// against its address, whose earlier failures stand.
func TestThrottleSuccessClearsThePairOnly(t *testing.T) {
	tc := newThrottleClock(t)
	const addr = "203.0.113.5"
	for range 3 {
		require.Zero(t, tc.fail("me@example.com", addr))
	}
	require.True(t, tc.succeed("me@example.com", addr))
	for range 4 {
		require.Zero(t, tc.fail("me@example.com", addr), "the pair starts afresh")
	}
	require.Equal(t, time.Second, tc.fail("me@example.com", addr))

	tc = newThrottleClock(t)
	for i := range 30 {
		require.True(t, tc.succeed(fmt.Sprintf("user%d@example.com", i), addr))
	}
	for i := range 21 {
		require.Zero(t, tc.fail(fmt.Sprintf("user%d@example.com", i), addr), "successes cost the address nothing")
	}
	require.Equal(t, time.Second, tc.fail("user0@example.com", addr))
}

// Concurrent guesses cannot all slip through before the first failure is
// recorded: when the pair's wait ends, ten attempts read the same state at
// once (the store holds each read until all ten have read), one of them
// is admitted and the others wait.
func TestThrottleAdmitsOneOfConcurrentAttempts(t *testing.T) {
	tc := newThrottleClock(t)
	const victim, attacker = "victim@example.com", "203.0.113.9"
	for range 4 {
		require.Zero(t, tc.fail(victim, attacker))
	}
	tc.now = tc.now.Add(time.Second)
	const n = 10
	tc.Store = &readBarrier{Store: tc.Store, wait: n, all: make(chan struct{})}
	var wg sync.WaitGroup
	var admitted atomic.Int32
	for range n {
		wg.Go(func() {
			_, wait, err := tc.admit(context.Background(), tc.keys("cust", victim, attacker))
			assert.NoError(t, err)
			if wait == 0 {
				admitted.Add(1)
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 1, admitted.Load())
}

// readBarrier holds the first reads of its collections until `wait` of
// them have happened, so that concurrent callers act on the same state.
type readBarrier struct {
	store.Store
	mu   sync.Mutex
	wait int
	all  chan struct{}
}

func (b *readBarrier) Global(name string) store.Collection {
	return barrierCollection{b.Store.Global(name), b}
}

type barrierCollection struct {
	store.Collection
	b *readBarrier
}

func (c barrierCollection) Get(ctx context.Context, id string, fields ...string) (store.Doc, error) {
	d, err := c.Collection.Get(ctx, id, fields...)
	c.b.mu.Lock()
	if c.b.wait--; c.b.wait == 0 {
		close(c.b.all)
	}
	c.b.mu.Unlock()
	select {
	case <-c.b.all:
	case <-time.After(10 * time.Second):
	}
	return d, err
}
