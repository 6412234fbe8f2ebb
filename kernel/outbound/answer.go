package outbound

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter parses a Retry-After header of an outside service's answer:
// delay-seconds or an HTTP date (RFC 9110 §10.2.3), as a wait from now;
// 0 when absent, malformed or past.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(secs, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// Bound cuts s (an outside service's message, kept in an error) to at
// most n bytes on a rune boundary, marking the cut with "…".
func Bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
