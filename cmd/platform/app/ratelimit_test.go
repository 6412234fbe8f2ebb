package app_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/testenv"
)

// requireLimit asserts that an answer reports a filled limit of want
// requests in its X-RateLimit headers and, for an envelope, in
// meta.rateLimit with the same values (an OpenAPI document has no meta).
func requireLimit(t *testing.T, r *testenv.Resp, want, what string) {
	t.Helper()
	require.Equal(t, want, r.Header.Get("X-RateLimit-Limit"), "%s: X-RateLimit-Limit", what)
	require.NotEmpty(t, r.Header.Get("X-RateLimit-Remaining"), "%s: X-RateLimit-Remaining", what)
	require.NotEmpty(t, r.Header.Get("X-RateLimit-Reset"), "%s: X-RateLimit-Reset", what)
	if _, ok := r.Env["meta"]; !ok {
		return
	}
	rl, ok := r.Meta()["rateLimit"].(map[string]any)
	require.True(t, ok, "%s: meta.rateLimit: %s", what, r.Body)
	assert.Equal(t, r.Header.Get("X-RateLimit-Limit"), rl["limit"], what)
	assert.Equal(t, r.Header.Get("X-RateLimit-Remaining"), rl["remaining"], what)
	assert.Equal(t, r.Header.Get("X-RateLimit-Reset"), rl["reset"], what)
	_, err := time.Parse(time.RFC3339, rl["resetDate"].(string))
	assert.NoError(t, err, "%s: meta.rateLimit.resetDate", what)
}

// TestEveryAnswerReportsItsRateLimit: answers that no token reached (401s,
// unmatched paths, OpenAPI documents, GET /events) report the client
// address's bucket, and those of a valid token its own.
func TestEveryAnswerReportsItsRateLimit(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{RateLimit: 1000, Configure: func(c *settings.Config) {
		c.RateLimitAnonymous, c.RateTokenShare = 700, 100
	}})
	for _, call := range []struct{ what, method, path, token string }{
		{"401 without a token", "GET", "/crm/consumers", ""},
		{"401 of a bad token", "GET", "/crm/consumers", "not-a-token"},
		{"unmatched path", "GET", "/nope", ""},
		{"unmatched module path", "GET", "/crm/nope", ""},
		{"wrong method", "DELETE", "/crm/openapi.json", ""},
		{"module OpenAPI", "GET", "/crm/openapi.json", ""},
		{"resource OpenAPI", "GET", "/crm/consumers/openapi.yaml", ""},
		{"GET /events", "GET", "/events", ""},
	} {
		requireLimit(t, p.Do(call.method, call.path, call.token, nil), "700", call.what)
	}
	tok := p.Token("crm.*")
	for _, path := range []string{"/events", "/nope", "/crm/openapi.json"} {
		requireLimit(t, p.Do("GET", path, tok, nil), "1000", path+" with a token")
	}
}

// TestAnonymousCallsCountPerAddress: calls without a valid token share one
// budget per client address; past it they answer 429 with Retry-After,
// while another address and a valid token still get through.
func TestAnonymousCallsCountPerAddress(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Configure: func(c *settings.Config) {
		c.RateLimitAnonymous, c.RateWindow = 3, time.Hour
	}})
	// The test's calls come from loopback, a trusted proxy: the last
	// X-Forwarded-For hop is the client address.
	from := func(addr string) *testenv.Resp {
		return p.Do("GET", "/crm/consumers", "", nil, "X-Forwarded-For", addr)
	}
	for i := range 3 {
		r := from("198.51.100.7")
		require.Equal(t, 401, r.Status, "call %d", i)
		require.Equal(t, []string{"2", "1", "0"}[i], r.Header.Get("X-RateLimit-Remaining"), "call %d", i)
	}
	r := from("198.51.100.7")
	require.Equal(t, 429, r.Status, "%s", r.Body)
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	requireLimit(t, r, "3", "the refused call")
	require.Equal(t, 401, from("198.51.100.8").Status, "another address has its own budget")
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", p.Token("crm.*"), nil, "X-Forwarded-For", "198.51.100.7").Status,
		"a valid token counts against its customer, not the address")
}

// TestTokenShareOfTheRateLimit: one token past its share of the customer's
// budget answers 429 with Retry-After while another token of the customer
// still gets through, and the customer's total still applies.
func TestTokenShareOfTheRateLimit(t *testing.T) {
	t.Parallel()
	// Customer 4 per window, each token half of it. The window is an hour:
	// the calls fall into one window but for one run in ~600.
	p := testenv.NewPlatform(t, testenv.Options{RateLimit: 4, Configure: func(c *settings.Config) {
		c.RateTokenShare, c.RateWindow = 50, time.Hour
	}})
	runaway, other, third := p.Token("crm.*"), p.Token("crm.*"), p.Token("crm.*")
	for i := range 2 {
		r := p.Do("GET", "/crm/consumers", runaway, nil)
		require.Equal(t, 200, r.Status, "call %d", i)
		requireLimit(t, r, "2", "the token's share is the tighter limit")
	}
	r := p.Do("GET", "/crm/consumers", runaway, nil)
	require.Equal(t, 429, r.Status, "%s", r.Body)
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	require.Equal(t, "0", r.Header.Get("X-RateLimit-Remaining"))
	requireLimit(t, r, "2", "the refused token")

	for i := range 2 {
		r := p.Do("GET", "/crm/consumers", other, nil)
		require.Equal(t, 200, r.Status, "another token of the customer, call %d: %s", i, r.Body)
	}
	r = p.Do("GET", "/crm/consumers", third, nil)
	require.Equal(t, 429, r.Status, "the customer's 4 are used up: %s", r.Body)
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	requireLimit(t, r, "4", "the customer's total")
}
