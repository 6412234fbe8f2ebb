package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/api"
	"platform/kernel/obs"
	"platform/kernel/resource"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/crm/bugs"
	"platform/test/testenv"
)

// stalledLimiter is a limiter whose store call is interrupted by the
// client hanging up (the platform's limiter renews its lease on a context
// of its own, so it no longer fails this way; another Limiter may).
type stalledLimiter struct {
	entered chan struct{}
}

func (l stalledLimiter) Take(ctx context.Context, key string) (api.LimitInfo, error) {
	close(l.entered)
	<-ctx.Done()
	return api.LimitInfo{}, fmt.Errorf("lease a block of %s: %w", key, ctx.Err())
}

// TestRateLimiterOfAGoneClientIs499: the rate limiter failing because the
// client hung up is logged as a 499 at info level, not as a 503 "rate
// limiter unavailable", and files no Bug task.
func TestRateLimiterOfAGoneClientIs499(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	logs := &testenv.SyncBuffer{}
	log := obs.NewLogger(logs, "info")
	limiter := stalledLimiter{entered: make(chan struct{})}
	s := api.New(api.Deps{
		Config: p.Config, Service: &resource.Service{Store: p.Store, Events: p.Events, Registry: resource.NewRegistry(), Log: log},
		Verifier: p.Verifier, Limiter: limiter, Bugs: &bugs.Recorder{Service: p.Service, Log: log}, Metrics: obs.NewMetrics(),
	})
	require.NoError(t, s.Mount(context.Background(), &api.Module{Name: "gate", HostLabel: "gate", Version: "0.0.1",
		Routes: func(r *api.ModuleRouter) {
			r.Handle("GET", "/ping", "crm.consumers.view", func(*api.Request) (*api.Response, error) { return &api.Response{}, nil })
		}}))
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)

	testenv.HangUp(t, srv.URL+"/gate/ping", p.Token("crm.*"), limiter.entered)
	line := testenv.AwaitLogLine(t, logs, `"msg":"request"`, `"route":"/gate/ping"`)
	assert.Equal(t, "INFO", line["level"], "%v", line)
	assert.Equal(t, float64(api.StatusClientClosed), line["status"], "%v", line)
	assert.NotContains(t, logs.String(), `"level":"ERROR"`, "no 503 rate limiter unavailable")
	n, err := p.Store.Collection("tasks").Count(p.Ctx(), nil)
	require.NoError(t, err)
	assert.Zero(t, n, "no Bug task for a client that left")
}

// TestOwnDeadlineIsNoHangUp: a deadline of the server's own that expires
// in a store call answers 504 naming a dependency time-out: neither a 499
// (the client is still there) nor a 500 with a Bug task.
func TestOwnDeadlineIsNoHangUp(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	require.NoError(t, p.API.Mount(context.Background(), &api.Module{Name: "late", HostLabel: "late", Version: "0.0.1",
		Routes: func(r *api.ModuleRouter) {
			r.Handle("GET", "/consumers", "crm.consumers.view", func(req *api.Request) (*api.Response, error) {
				ctx, cancel := context.WithTimeout(req.Ctx, time.Nanosecond)
				defer cancel()
				<-ctx.Done()
				_, err := p.Store.Collection("consumers").Find(ctx, store.FindOptions{})
				return nil, err
			})
		}}))
	r := p.Do("GET", "/late/consumers", p.Token("crm.*"), nil)
	require.Equal(t, http.StatusGatewayTimeout, r.Status, "%s", r.Body)
	assert.Equal(t, []string{"dependency.timeout"}, r.ErrorCodes())
	n, err := p.Store.Collection("tasks").Count(p.Ctx(), nil)
	require.NoError(t, err)
	assert.Zero(t, n, "a time-out files no Bug task")
}

// readyServer serves a bare API with the given readiness checks.
func readyServer(t *testing.T, checks ...api.ReadyCheck) string {
	t.Helper()
	cfg, err := settings.Load("test", nil)
	require.NoError(t, err)
	log := testenv.Logger(t)
	s := api.New(api.Deps{Config: cfg, Service: &resource.Service{Registry: resource.NewRegistry(), Log: log}, Metrics: obs.NewMetrics(), Ready: checks})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestReadyzCannotLoadTheStore: 100 concurrent /readyz calls share their
// store pings: one per second at most, plus the one under way.
func TestReadyzCannotLoadTheStore(t *testing.T) {
	t.Parallel()
	st := testenv.NewStore(t, "")
	var pings atomic.Int64
	url := readyServer(t, api.ReadyCheck{Name: "store", Check: func(ctx context.Context) error {
		pings.Add(1)
		return st.Ping(ctx)
	}})
	begin := time.Now()
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Get(url + "/readyz")
			if assert.NoError(t, err) {
				res.Body.Close()
				assert.Equal(t, http.StatusOK, res.StatusCode)
			}
		}()
	}
	wg.Wait()
	// Results are kept 1 s: a slow machine may span a few such periods.
	allowed := 2 + int64(time.Since(begin)/time.Second)
	t.Logf("100 calls in %v: %d pings", time.Since(begin), pings.Load())
	assert.LessOrEqual(t, pings.Load(), allowed)
}

// TestReadyzNamesWhatIsDown: a failing check and one that never returns
// (ignoring its context) both answer 503 naming the dependency, the latter
// after the check's time-out rather than never.
func TestReadyzNamesWhatIsDown(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	url := readyServer(t,
		api.ReadyCheck{Name: "queue", Check: func(context.Context) error { return errors.New("connection refused") }},
		api.ReadyCheck{Name: "mailer", Check: func(context.Context) error { <-stuck; return nil }},
		api.ReadyCheck{Name: "store", Check: func(context.Context) error { return nil }},
	)
	res, err := (&http.Client{Timeout: 30 * time.Second}).Get(url + "/readyz")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	var env struct {
		Meta struct{ Errors []api.ErrorEntry }
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&env))
	assert.ElementsMatch(t, []api.ErrorEntry{
		{Code: "dependency.unavailable", Field: "queue", Message: "queue is not reachable"},
		{Code: "dependency.unavailable", Field: "mailer", Message: "mailer is not reachable"},
	}, env.Meta.Errors)
}

// TestStartingServer: while a process connects, it is alive but not ready,
// and every other route asks the client to come back.
func TestStartingServer(t *testing.T) {
	t.Parallel()
	cfg, err := settings.Load("test", nil)
	require.NoError(t, err)
	srv := httptest.NewServer(api.Starting(cfg, testenv.Logger(t)).Handler())
	t.Cleanup(srv.Close)
	status := func(path string) (*http.Response, map[string]any) {
		res, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer res.Body.Close()
		var env map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&env))
		return res, env
	}
	res, _ := status("/healthz")
	assert.Equal(t, http.StatusOK, res.StatusCode)
	res, env := status("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	meta, _ := env["meta"].(map[string]any)
	assert.Contains(t, meta["errors"], map[string]any{"code": "dependency.unavailable", "field": "process", "message": "starting"})
	res, _ = status("/crm/consumers")
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	assert.Equal(t, "1", res.Header.Get("Retry-After"))
}

// TestSlowClientsAreCut: headers or a body trickling in do not hold a
// connection: with a read time-out of 2 s, a body announced as 100 bytes
// of which 5 come is answered 408 on an API route and refused on
// /oauth/token (no token needed to try), and unfinished headers close the
// connection. Before, all three stayed open for minutes.
func TestSlowClientsAreCut(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Configure: func(c *settings.Config) {
		c.HTTPReadHeaderTimeout, c.HTTPReadTimeout = time.Second, 2*time.Second
	}})
	u, err := url.Parse(p.URL)
	require.NoError(t, err)
	body := "Content-Length: 100\r\n\r\n{\"em"
	for _, tc := range []struct{ name, head, status string }{
		{"a slow body on an API route", "POST /crm/consumers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + p.Token("crm.*") +
			"\r\nContent-Type: application/json\r\n" + body, "HTTP/1.1 408"},
		{"a slow body on /oauth/token", "POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n" + body, "HTTP/1.1 400"},
		{"slow headers", "GET /healthz HTTP/1.1\r\nHost: x\r\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, took := slowRequest(t, u.Host, tc.head)
			assert.True(t, strings.HasPrefix(status, tc.status), "status line %q", status)
			t.Logf("%s: %q after %v", tc.name, status, took)
		})
	}
}

// slowRequest sends head and waits until the server answers and closes the
// connection, or closes it without an answer (status ""). It fails past 30
// s: far above the 2 s time-out, for a busy machine, far below "never".
func slowRequest(t *testing.T, addr, head string) (status string, took time.Duration) {
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	begin := time.Now()
	_, err = io.WriteString(conn, head)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(begin.Add(30*time.Second)))
	r := bufio.NewReader(conn)
	status, err = r.ReadString('\n')
	if err == nil {
		_, err = io.Copy(io.Discard, r) // the rest of the answer, then the close
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %v", time.Since(begin))
	}
	return strings.TrimSpace(status), time.Since(begin)
}
