package app_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/ratelimit"
	"platform/kernel/settings"
	"platform/test/testenv"
)

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	r := p.Do("GET", "/healthz", "", nil)
	require.Equal(t, 200, r.Status)
	r = p.Do("GET", "/readyz", "", nil)
	require.Equal(t, 200, r.Status)
	deps := r.Payload()["dependencies"].(map[string]any)
	require.Equal(t, "up", deps["store"])
	require.Equal(t, "up", deps["temporal"])

	require.NoError(t, p.Store.Close(context.Background()))
	// A check's result is kept for a second, so that readiness probes
	// cannot load the store: the outage shows within about that.
	require.Eventually(t, func() bool {
		r = p.Do("GET", "/readyz", "", nil)
		return r.Status == 503
	}, 10*time.Second, 100*time.Millisecond)
	require.Equal(t, []string{"dependency.unavailable"}, r.ErrorCodes())
	require.Contains(t, string(r.Body), `"field":"store"`, "names the failing dependency")
}

func TestMetricsByRouteTemplate(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("crm.*")
	require.Equal(t, 404, p.Do("GET", "/crm/consumers/0123456789abcdef01234567", tok, nil).Status)
	r := p.Do("GET", "/metrics", "", nil)
	require.Equal(t, 200, r.Status)
	body := string(r.Body)
	require.Contains(t, body, `platform_http_requests_total{method="GET",route="/crm/consumers/:id",status="404"} 1`)
	require.Contains(t, body, `platform_http_request_duration_seconds_bucket{method="GET",route="/crm/consumers/:id",status="404"`)
}

func TestDebugIDOnEveryAnswer(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	for _, path := range []string{"/healthz", "/crm/consumers", "/nope"} {
		r := p.Do("GET", path, "", nil)
		id := r.Header.Get("X-Debug-Id")
		require.Len(t, id, 24, path)
		require.Equal(t, id, r.Meta()["debugId"], path)
	}
}

// TestRateLimitAnswers429: the limit is reported in meta and headers, and
// the request past it answers 429 with Retry-After.
func TestRateLimitAnswers429(t *testing.T) {
	t.Parallel()
	// Windows are fixed (aligned to multiples of their length): an hour
	// long, the six calls fall into one window but for one run in ~600.
	// The token may use the whole budget: this is the customer's limit.
	p := testenv.NewPlatform(t, testenv.Options{RateLimit: 5, Configure: func(c *settings.Config) { c.RateWindow, c.RateTokenShare = time.Hour, 100 }})
	tok := p.Token("crm.*")
	for i := 0; i < 5; i++ {
		r := p.Do("GET", "/crm/consumers", tok, nil)
		require.Equal(t, 200, r.Status, "request %d", i)
		rl := r.Meta()["rateLimit"].(map[string]any)
		require.Equal(t, "5", rl["limit"])
		require.Equal(t, strings.TrimSpace(r.Header.Get("X-RateLimit-Remaining")), rl["remaining"])
	}
	r := p.Do("GET", "/crm/consumers", tok, nil)
	require.Equal(t, 429, r.Status)
	require.Equal(t, []string{"rate_limit.exceeded"}, r.ErrorCodes())
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	require.Equal(t, "0", r.Header.Get("X-RateLimit-Remaining"))

	other, admin := p.OtherCustomer("ratelimit-other")
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", p.TokenFor(other.ID, admin.ID, "crm.*"), nil).Status,
		"another customer has its own budget")
}

// TestRateLimitIsSharedByReplicas: two limiters on one store (two API
// replicas) together never allow more than the limit in a window.
func TestRateLimitIsSharedByReplicas(t *testing.T) {
	t.Parallel()
	st := testenv.MongoStore(t)
	const limit = 200
	replicas := []*ratelimit.Limiter{ratelimit.New(st, limit, time.Hour), ratelimit.New(st, limit, time.Hour)}
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				info, err := replicas[i%2].Take(context.Background(), "cust")
				if err != nil {
					t.Error(err)
					return
				}
				if info.Allowed {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}(i)
	}
	wg.Wait()
	require.Equal(t, limit, allowed, "400 attempts against a shared limit of 200")
}
