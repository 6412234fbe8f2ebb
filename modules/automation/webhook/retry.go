package webhook

import "time"

// Retry back-off (DESIGN §5): the wait after a failed attempt doubles from
// one minute, capped at 16, so the five attempts of a delivery come after
// waits of 1, 2, 4 and 8 minutes, about 15 minutes end to end.
const (
	FirstRetryWait = time.Minute
	MaxRetryWait   = 16 * time.Minute
)

// RetryWait is the wait after the n-th failed attempt (from 1) before the
// next.
func RetryWait(n int) time.Duration {
	w := FirstRetryWait
	for i := 1; i < n && w < MaxRetryWait; i++ {
		w *= 2
	}
	return min(w, MaxRetryWait)
}

// Verbs of the circuit breaker's events: webhooks.disabled when the
// platform turns off a webhook whose deliveries keep failing,
// webhooks.enabled when the enable action turns it back on.
const (
	EventDisabled = "disabled"
	EventEnabled  = "enabled"
)

// StreakFields are the webhook's failure-streak bookkeeping the breaker
// keeps (failingSince: the first failed attempt since the last success;
// parkedInRow: deliveries parked since then), and DisabledFields what a
// disable sets beside active: false. Enabling clears them all.
var (
	StreakFields   = []string{"failingSince", "parkedInRow"}
	DisabledFields = []string{"disabledAt", "disabledReason"}
)
