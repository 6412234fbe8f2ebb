package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"platform/api"
	"platform/kernel/settings"
)

// Waits between start-up attempts: short at first (a store a second late),
// growing to a few seconds (a store restarting), with jitter so that
// replicas started together do not retry in lockstep.
const (
	firstRetryWait = 250 * time.Millisecond
	maxRetryWait   = 5 * time.Second
)

// retrier repeats a start-up step that fails while a dependency is not
// reachable yet or replicas race each other (two processes creating the
// same indexes at once), until PLATFORM_STARTUP_TIMEOUT has passed since
// the process started. Every failure is retried except the permanent ones
// (failfast.go): an error nobody classified ends, at the latest, at the
// time-out, and its text is in the log from the first attempt on.
type retrier struct {
	log      *slog.Logger
	deadline time.Time
}

func newRetrier(cfg *settings.Config, log *slog.Logger, started time.Time) *retrier {
	return &retrier{log: log, deadline: started.Add(cfg.StartupTimeout)}
}

// do runs step until it succeeds, fails for good, or time is up. The
// step's context ends at the deadline, so a hanging attempt ends too.
func (r *retrier) do(ctx context.Context, step string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithDeadline(ctx, r.deadline)
	defer cancel()
	wait := firstRetryWait
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if err == nil || permanent(err) || errors.Is(ctx.Err(), context.Canceled) {
			return err // done, hopeless, or the process is stopping
		}
		if ctx.Err() != nil || time.Until(r.deadline) < wait {
			return fmt.Errorf("%s: still failing when PLATFORM_STARTUP_TIMEOUT ran out (attempts: %d): %w", step, attempt, err)
		}
		pause := jitter(wait)
		r.log.Warn("start-up step failed; retrying", "step", step, "attempt", attempt, "retryIn", pause.String(), "error", err.Error())
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		wait = min(2*wait, maxRetryWait)
	}
}

// jitter returns a wait between d/2 and d.
func jitter(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2+1)
}

// front is the HTTP side of an API process. It listens before the process
// connects to anything, answering with api.Starting (/healthz 200, /readyz
// 503 "starting"), and switches to the App's API once it is wired.
type front struct {
	srv     *http.Server
	handler atomic.Pointer[http.Handler]
	errc    chan error // the server's end
}

func listen(cfg *settings.Config, log *slog.Logger) (*front, error) {
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return nil, listenFailed("PLATFORM_HTTP_ADDR", "http", cfg.HTTPAddr, "", err)
	}
	ln = api.EnvelopeListener(ln, log)
	f := &front{errc: make(chan error, 1)}
	f.serve(api.Starting(cfg, log).Handler())
	f.srv = api.NewHTTPServer(cfg, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*f.handler.Load()).ServeHTTP(w, r)
	}))
	go func() { f.errc <- f.srv.Serve(ln) }()
	log.Info("API listening", "address", ln.Addr().String(), "gateway", cfg.GatewayURL)
	return f, nil
}

// serve answers every request from now on with h.
func (f *front) serve(h http.Handler) { f.handler.Store(&h) }
