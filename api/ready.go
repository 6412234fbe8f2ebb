package api

import (
	"platform/kernel/resource"

	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Readiness is asked often (every load balancer, every orchestrator, every
// replica's probe) and must not load what it checks: each dependency is
// checked at most once per readyCacheFor however many callers ask, callers
// arriving while a check runs share it, and a check that hangs is given up
// after readyCheckTimeout.
const (
	readyCacheFor     = time.Second
	readyCheckTimeout = 2 * time.Second
)

var errCheckTimedOut = errors.New("the check did not finish in time")

// probe runs one ReadyCheck for all callers and remembers its last result.
type probe struct {
	ReadyCheck
	log *slog.Logger

	mu      sync.Mutex
	running bool
	done    chan struct{} // closed when the last check started has ended
	err     error         // result of the last check that ended
	at      time.Time     // when it ended
}

func probes(checks []ReadyCheck, log *slog.Logger) []*probe {
	out := make([]*probe, len(checks))
	for i, c := range checks {
		out[i] = &probe{ReadyCheck: c, log: log}
	}
	return out
}

// refresh starts a check unless one runs or the last result is recent; the
// channel is closed once the result to use is there.
func (p *probe) refresh() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running && (p.at.IsZero() || time.Since(p.at) >= readyCacheFor) {
		p.running, p.done = true, make(chan struct{})
		go p.run(p.done)
	}
	return p.done
}

// run checks with its own time-out, not a caller's context: the result is
// shared, so one caller hanging up must not fail it for the others.
func (p *probe) run(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), readyCheckTimeout)
	defer cancel()
	err := p.Check(ctx)
	if err != nil {
		p.log.Warn("dependency not ready", "dependency", p.Name, "error", err)
	}
	p.mu.Lock()
	p.running, p.err, p.at = false, err, time.Now()
	p.mu.Unlock()
	close(done)
}

// result waits for the check refresh returned, at most readyCheckTimeout
// (a Check that ignores its context must not hang /readyz).
func (p *probe) result(ctx context.Context, done <-chan struct{}) error {
	t := time.NewTimer(readyCheckTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		return errCheckTimedOut
	case <-ctx.Done():
		return ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (s *Server) healthz(*Request) (*Response, error) {
	return &Response{Payload: map[string]any{"status": "up"}}, nil
}

// readyz answers 200 when the process and every dependency are ready, else
// 503 with one entry per failing one. The checks run in parallel.
func (s *Server) readyz(r *Request) (*Response, error) {
	var failing []resource.ErrorEntry
	if state := s.processState(); state != "" {
		failing = append(failing, resource.ErrorEntry{Code: resource.CodeUnavailable, Field: "process", Message: state})
	}
	pending := make([]<-chan struct{}, len(s.ready))
	for i, p := range s.ready {
		pending[i] = p.refresh()
	}
	deps := map[string]string{}
	for i, p := range s.ready {
		deps[p.Name] = "up"
		if err := p.result(r.Ctx, pending[i]); err != nil {
			deps[p.Name] = "down"
			failing = append(failing, resource.ErrorEntry{Code: resource.CodeUnavailable, Field: p.Name, Message: p.Name + " is not reachable"})
		}
	}
	if len(failing) > 0 {
		return nil, &Error{Status: http.StatusServiceUnavailable, Entries: failing}
	}
	return &Response{Payload: map[string]any{"status": "ready", "dependencies": deps}}, nil
}

// processState says why the process itself is not ready, or "".
func (s *Server) processState() string {
	switch {
	case s.starting:
		return "starting"
	case s.draining.Load():
		return "shutting down"
	}
	return ""
}
