package outbound

import (
	"fmt"
	"time"
)

// RetryableError is a provider's failure that may pass if the call is
// repeated later: it is rate-limiting (429) or failing (5xx). A Temporal
// activity retries it, honouring RetryAfter.
type RetryableError struct {
	Service    string // who answered: "translate", "llm"
	Status     int
	RetryAfter time.Duration // the provider's Retry-After; 0 when not given
	Message    string        // the provider's, bounded
}

func (e *RetryableError) Error() string {
	msg := fmt.Sprintf("%s: provider answered %d, retry later", e.Service, e.Status)
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (after %s)", e.RetryAfter)
	}
	return withMessage(msg, e.Message)
}

// PermanentError is a request the provider rejected (a 4xx that is not
// about the key, the quota or the rate): repeating it fails again.
type PermanentError struct {
	Service string
	Status  int
	Code    string // the provider's error code, if it gives one
	Message string // the provider's, bounded
}

func (e *PermanentError) Error() string {
	msg := fmt.Sprintf("%s: provider rejected the request (%d)", e.Service, e.Status)
	if e.Code != "" {
		msg = fmt.Sprintf("%s: provider rejected the request (%d %s)", e.Service, e.Status, e.Code)
	}
	return withMessage(msg, e.Message)
}

func withMessage(msg, detail string) string {
	if detail == "" {
		return msg
	}
	return msg + ": " + detail
}
