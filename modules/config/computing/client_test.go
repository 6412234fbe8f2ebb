package computing_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
	"platform/modules/config/computing"
)

// clock is a settable time for the simulator.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

func newClient(t *testing.T, h http.Handler, token string) *computing.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	g, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	c, err := computing.NewClient(srv.URL, token, 5*time.Second, g.Client(5*time.Second))
	require.NoError(t, err)
	return c
}

// TestClientAgainstSimulator: each move passes through its transitional
// state for the delay and then lands; moves the state forbids are refused.
func TestClientAgainstSimulator(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	sim := &computing.Simulator{Delay: time.Minute, Token: "s3cret", Now: clk.Now}
	c := newClient(t, sim, "s3cret")
	ctx := context.Background()
	ref := computing.Ref{ID: "i-0abc", Type: computing.TypeAWS, Customer: "c1"}

	m, err := c.Machine(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, computing.Stopped, m.State, "a machine is stopped at first")

	for _, step := range []struct{ action, during, after string }{
		{computing.Start, computing.Pending, computing.Running},
		{computing.Stop, computing.Stopping, computing.Stopped},
		{computing.Start, computing.Pending, computing.Running},
		{computing.Terminate, computing.ShuttingDown, computing.Terminated},
	} {
		m, err = c.Request(ctx, computing.Move{Ref: ref, Action: step.action})
		require.NoError(t, err, step.action)
		assert.Equal(t, step.during, m.State, step.action)
		_, err = c.Request(ctx, computing.Move{Ref: ref, Action: step.action})
		require.ErrorIs(t, err, computing.ErrRefused, "no second move while one is under way")
		clk.Add(59 * time.Second)
		m, _ = c.Machine(ctx, ref)
		assert.Equal(t, step.during, m.State, "%s: still moving before the delay", step.action)
		clk.Add(time.Second)
		m, _ = c.Machine(ctx, ref)
		assert.Equal(t, step.after, m.State, "%s: landed after the delay", step.action)
	}
	_, err = c.Request(ctx, computing.Move{Ref: ref, Action: computing.Start})
	require.ErrorIs(t, err, computing.ErrRefused, "terminated is final")
	assert.Equal(t, 4, sim.Requests(), "refused moves are not counted")

	other := ref
	other.Customer = "c2"
	m, _ = c.Machine(ctx, other)
	assert.Equal(t, computing.Stopped, m.State, "machines are kept per customer")
}

// TestClientFailures: a wrong token and a provider's other answers map to
// errors a workflow can act on, and the token never appears in them.
func TestClientFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ref := computing.Ref{ID: "m1", Type: computing.TypeContainer, Customer: "c1"}

	_, err := newClient(t, &computing.Simulator{Token: "right"}, "wrong").Machine(ctx, ref)
	var perm *outbound.PermanentError
	require.ErrorAs(t, err, &perm)
	assert.Equal(t, http.StatusUnauthorized, perm.Status)

	answer := func(status int, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		})
	}
	_, err = newClient(t, answer(503, "busy, token tok-123"), "tok-123").Machine(ctx, ref)
	var retry *outbound.RetryableError
	require.ErrorAs(t, err, &retry)
	assert.Equal(t, 7*time.Second, retry.RetryAfter)
	assert.NotContains(t, err.Error(), "tok-123")

	_, err = newClient(t, answer(404, "gone"), "").Machine(ctx, ref)
	require.ErrorIs(t, err, computing.ErrUnknownMachine)

	_, err = newClient(t, answer(200, `{"id":"m1","state":"exploded"}`), "").Machine(ctx, ref)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown state "exploded"`)
	assert.False(t, errors.Is(err, computing.ErrRefused))
}
