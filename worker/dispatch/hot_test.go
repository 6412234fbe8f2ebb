package dispatch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
)

// TestHotEventsTakeTurnsBetweenCustomers: a customer with a burst gets one
// batch at a time and goes to the back of the turn, so another customer's
// single event is taken next; a busy customer is skipped until done.
func TestHotEventsTakeTurnsBetweenCustomers(t *testing.T) {
	var h hotEvents
	ev := func(customer, id string) events.Event { return events.Event{Customer: customer, ID: id} }
	ids := func(evs []events.Event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.ID)
		}
		return out
	}
	for i := 0; i < 5; i++ {
		require.True(t, h.add(ev("burst", string(rune('a'+i))), 10))
	}
	require.True(t, h.add(ev("quiet", "q"), 10))
	require.False(t, h.add(ev("quiet", "over"), 1), "a full buffer refuses: the sweep takes it later")

	c, got, ok := h.take(2)
	require.True(t, ok)
	require.Equal(t, "burst", c)
	require.Equal(t, []string{"a", "b"}, ids(got))

	c, got, _ = h.take(2)
	require.Equal(t, "quiet", c, "the other customer's turn")
	require.Equal(t, []string{"q"}, ids(got))

	_, _, ok = h.take(2)
	require.False(t, ok, "burst is busy with its batch")
	h.done("burst")
	c, got, _ = h.take(2)
	require.Equal(t, "burst", c)
	require.Equal(t, []string{"c", "d"}, ids(got))
}

// TestLaneCircuitOpensAfterAStreakAndHandsOverItsQueue: the failure that
// completes the streak opens the circuit and takes the waiting deliveries
// for the retrier; a success closes it.
func TestLaneCircuitOpensAfterAStreakAndHandsOverItsQueue(t *testing.T) {
	l := &lane{queue: []job{{}, {}, {}}}
	for i := 0; i < 4; i++ {
		q, _ := l.failed(5, time.Minute)
		require.Nil(t, q)
	}
	q, until := l.failed(5, time.Minute)
	require.Len(t, q, 3)
	require.Equal(t, l.openUntil, until, "handed over not to be tried before the circuit half-opens")
	require.Empty(t, l.queue)
	require.True(t, time.Now().Before(l.openUntil))
	l.succeeded()
	require.Zero(t, l.fails)
	require.True(t, l.openUntil.IsZero())
}
