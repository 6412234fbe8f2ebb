package outbound_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"platform/kernel/outbound"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"120":                           2 * time.Minute,
		" 3 ":                           3 * time.Second,
		"-5":                            0,
		"soon":                          0,
		"Fri, 02 Jan 2026 03:05:05 GMT": time.Minute,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0, // past
	} {
		assert.Equal(t, want, outbound.RetryAfter(v, now), "%q", v)
	}
}

func TestBoundCutsOnARuneBoundary(t *testing.T) {
	assert.Equal(t, "short", outbound.Bound("short", 10))
	assert.Equal(t, "ab…", outbound.Bound("abcdef", 2))
	assert.Equal(t, "a…", outbound.Bound("aé", 2), "é is two bytes: the cut moves before it")
}
