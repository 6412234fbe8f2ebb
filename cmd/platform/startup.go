package main

import (
	"context"
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
// same indexes at once). Three kinds of failure: a permanent one
// (failfast.go: a bad setting, a refused master key, a damaged database
// file) stops at once; a dependency over the network that does not answer
// (transient.go) is waited for without end, so replicas and servers may
// start in any order; anything else is retried until
// PLATFORM_STARTUP_TIMEOUT has passed since the process started. Its text
// is in the log from the first attempt on.
type retrier struct {
	log         *slog.Logger
	deadline    time.Time
	remoteStore bool
}

func newRetrier(cfg *settings.Config, log *slog.Logger, started time.Time) *retrier {
	return &retrier{log: log, deadline: started.Add(cfg.StartupTimeout), remoteStore: cfg.MongoURI != ""}
}

// do runs step until it succeeds, fails for good, or time is up. Each
// attempt has attemptTimeout, so a hanging attempt ends too.
func (r *retrier) do(ctx context.Context, step string, fn func(ctx context.Context) error) error {
	wait := firstRetryWait
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err := fn(actx)
		cancel()
		if err == nil || permanent(err) || ctx.Err() != nil {
			return err // done, hopeless, or the process is stopping
		}
		waiting := transient(err, r.remoteStore)
		if !waiting && time.Until(r.deadline) < wait {
			return fmt.Errorf("%s: still failing when PLATFORM_STARTUP_TIMEOUT ran out (attempts: %d): %w", step, attempt, err)
		}
		pause := jitter(wait)
		until := "reachable"
		if !waiting {
			until = r.deadline.UTC().Format(time.RFC3339)
		}
		r.log.Warn("start-up step failed; retrying", "step", step, "attempt", attempt, "retryIn", pause.String(), "retryUntil", until, "error", err.Error())
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
