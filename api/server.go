// Package api is the REST core: the envelope, errors, authentication and
// rights, rate limits, the declarative resource registry with its generic
// handlers, list queries, output formats and OpenAPI descriptions.
package api

import (
	"platform/kernel/ratelimit"
	"platform/kernel/resource"

	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"platform/kernel/auth"
	"platform/kernel/obs"
	"platform/kernel/settings"
)

// TokenVerifier checks a bearer token (auth.Verifier implements it).
type TokenVerifier interface {
	Verify(ctx context.Context, raw string) (*auth.Principal, error)
}

// LimitInfo is one rate-limit decision.
type LimitInfo = ratelimit.Decision

// Limiter counts requests per key (a customer, a token, a client address)
// across every replica.
type Limiter interface {
	Take(ctx context.Context, key string) (LimitInfo, error)
}

// ReadyCheck is one dependency /readyz checks.
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// Module is one domain module: its resources and any extra routes.
type Module struct {
	Name      string // path segment in the gateway form, e.g. "crm"
	HostLabel string // <label>-api.<domain>
	Version   string
	Resources []*resource.Resource
	// Routes adds routes beyond the generic ones (relative to the module);
	// Paths describes them for the module's OpenAPI document.
	Routes func(r *ModuleRouter)
	Paths  map[string]any
}

// Deps are the Server's dependencies, satisfied by the composition root.
type Deps struct {
	Config   *settings.Config
	Service  *resource.Service
	Verifier TokenVerifier
	Limiter  Limiter // per customer
	Bugs     BugReporter
	Metrics  *obs.Metrics
	Ready    []ReadyCheck

	// AnonLimiter counts calls without a valid token per client address
	// (default: Limiter, under keys of their own). TokenLimiter, when set,
	// limits each access token to a share of its customer's budget.
	AnonLimiter  Limiter
	TokenLimiter Limiter
}

// Server is the HTTP API.
type Server struct {
	cfg     *settings.Config
	svc     *resource.Service
	log     *slog.Logger
	verify  TokenVerifier
	limiter Limiter
	bugs    BugReporter
	metrics *obs.Metrics
	ready   []*probe
	engine  *gin.Engine
	modules map[string]*Module // by name
	labels  map[string]*Module // by host label
	// hostRouters may send requests for hosts of no module elsewhere
	// (a CMS page's custom domain); see RouteHosts.
	hostRouters []func(*http.Request) *http.Request

	anonLimiter, tokenLimiter Limiter // see Deps

	starting bool // the stand-in of Starting: never ready
	draining atomic.Bool
}

// Drain makes /readyz answer 503 so load balancers stop sending traffic
// while in-flight and already queued requests are still served.
func (s *Server) Drain() { s.draining.Store(true) }

// New builds the server with its global routes.
func New(d Deps) *Server {
	s := newServer(d.Config, d.Service.Log, d.Metrics, d.Ready)
	s.svc, s.verify, s.limiter, s.bugs = d.Service, d.Verifier, d.Limiter, d.Bugs
	s.anonLimiter, s.tokenLimiter = d.AnonLimiter, d.TokenLimiter
	if s.anonLimiter == nil {
		s.anonLimiter = d.Limiter
	}
	s.engine.NoRoute(s.limit, s.adapt(func(*Request) (*Response, error) {
		return nil, NewError(http.StatusNotFound, resource.CodeNotFound, "", "no such endpoint")
	}))
	s.engine.NoMethod(s.limit, s.adapt(func(*Request) (*Response, error) {
		return nil, NewError(http.StatusMethodNotAllowed, CodeMethod, "", "method not allowed on this endpoint")
	}))
	s.engine.GET("/events", s.limit, s.authenticate, s.adapt(s.eventNames))
	s.engine.GET("/openapi.json", s.limit, s.adapt(s.allOpenAPI("json")))
	s.engine.GET("/openapi.yaml", s.limit, s.adapt(s.allOpenAPI("yaml")))
	return s
}

// Starting builds the stand-in a process serves while it connects to the
// store and Temporal and wires the real Server: /healthz answers 200 (the
// process is alive), /readyz 503 "starting", every other route 503 with
// Retry-After. Listening this early lets orchestrators tell a process that
// waits for its dependencies from one that hangs.
func Starting(cfg *settings.Config, log *slog.Logger) *Server {
	s := newServer(cfg, log, obs.NewMetrics(), nil)
	s.starting = true
	unavailable := s.adapt(func(*Request) (*Response, error) {
		e := NewError(http.StatusServiceUnavailable, resource.CodeUnavailable, "", "the platform is starting; retry shortly")
		e.Header = http.Header{"Retry-After": {"1"}}
		return nil, e
	})
	s.engine.NoRoute(unavailable)
	s.engine.NoMethod(unavailable)
	return s
}

// newServer builds what every Server has: request logging, metrics, panic
// recovery and the health routes.
func newServer(cfg *settings.Config, log *slog.Logger, metrics *obs.Metrics, ready []ReadyCheck) *Server {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	s := &Server{cfg: cfg, log: log, metrics: metrics, ready: probes(ready, log), engine: e,
		modules: map[string]*Module{}, labels: map[string]*Module{}}
	e.Use(s.observe, s.recoverPanic)
	e.GET("/healthz", s.adapt(s.healthz))
	e.GET("/readyz", s.adapt(s.readyz))
	e.GET("/metrics", gin.WrapH(promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{})))
	return s
}

// NewHTTPServer is the http.Server of every process (and of the tests'
// platforms), with the time-outs of the configuration. A client must send
// its headers within HTTPReadHeaderTimeout and its whole request within
// HTTPReadTimeout (a body trickling in byte by byte would otherwise hold a
// connection and a goroutine for ever); an idle keep-alive connection
// closes after HTTPIdleTimeout. There is no WriteTimeout: Go's bounds the
// handler's whole run plus the writing, which would cut long CSV exports
// and any future streaming answer (SSE, WebSocket) at a fixed age.
func NewHTTPServer(cfg *settings.Config, h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: cfg.HTTPReadHeaderTimeout,
		ReadTimeout: cfg.HTTPReadTimeout, IdleTimeout: cfg.HTTPIdleTimeout}
}

// Module is the mounted module of that name, or nil.
func (s *Server) Module(name string) *Module { return s.modules[name] }

// Engine exposes the router so services outside the modules (OAuth, audit,
// tracking) can add routes.
func (s *Server) Engine() *gin.Engine { return s.engine }

// Handler serves both address forms: the gateway form /<module>/... and the
// module host form <label>-api.<domain>/... (rewritten to the gateway form).
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := s.moduleOfHost(r.Host); m != nil && !strings.HasPrefix(r.URL.Path, "/"+m.Name+"/") {
			r.URL.Path = "/" + m.Name + r.URL.Path
			r.URL.RawPath = ""
		} else if m == nil {
			r = s.routeHost(r)
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = timedBody{r.Body}
		}
		s.engine.ServeHTTP(w, r)
	})
}

// errBodyTimeout marks a request body that did not arrive within the
// server's read time-out (answered 408, not as a malformed body).
var errBodyTimeout = errors.New("request body read timed out")

// timedBody tags the read error of an expired read deadline: the conn's
// deadline is the only one a request body read can hit.
type timedBody struct{ io.ReadCloser }

func (b timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("%w: %w", errBodyTimeout, err)
	}
	return n, err
}

// RouteHosts adds a router for requests to hosts that are no module's:
// it returns the request unchanged, or rewritten (path, context) to reach
// its own routes. Routers run in the order added, before the routes.
func (s *Server) RouteHosts(route func(*http.Request) *http.Request) {
	s.hostRouters = append(s.hostRouters, route)
}

func (s *Server) routeHost(r *http.Request) *http.Request {
	for _, route := range s.hostRouters {
		r = route(r)
	}
	return r
}

func (s *Server) moduleOfHost(host string) *Module {
	label, rest, ok := strings.Cut(host, "-api.")
	if !ok || rest != s.cfg.PlatformDomain {
		return nil
	}
	return s.labels[label]
}

// observe gives every request a debug id, a log line and metrics.
func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	id := newDebugID()
	c.Set(keyStart, start)
	c.Set(keyServer, s)
	c.Header("X-Debug-Id", id)
	c.Request = c.Request.WithContext(obs.WithDebugID(c.Request.Context(), id))
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	status := c.Writer.Status()
	code := statusLabel(status)
	s.metrics.Requests.WithLabelValues(route, c.Request.Method, code).Inc()
	s.metrics.Latency.WithLabelValues(route, c.Request.Method, code).Observe(time.Since(start).Seconds())
	if s.log.Enabled(c.Request.Context(), slog.LevelDebug) || status >= 400 {
		s.log.InfoContext(c.Request.Context(), "request", "method", c.Request.Method, "route", route,
			"status", status, "ms", float64(time.Since(start).Microseconds())/1000)
	}
}

func statusLabel(s int) string {
	const digits = "0123456789"
	return string([]byte{digits[s/100%10], digits[s/10%10], digits[s%10]})
}

// recoverPanic turns a panic into a 500 envelope (recorded as a Bug task).
func (s *Server) recoverPanic(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.renderError(c, &Error{Status: http.StatusInternalServerError, Cause: panicError{v},
				Entries: []resource.ErrorEntry{{Code: resource.CodeInternal, Message: "internal error; quote the debug id when reporting it"}}})
			c.Abort()
		}
	}()
	c.Next()
}

type panicError struct{ v any }

func (p panicError) Error() string { return "panic: " + stringify(p.v) }

func stringify(v any) string {
	if e, ok := v.(error); ok {
		return e.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "non-error panic value"
}

func newDebugID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Server) eventNames(*Request) (*Response, error) {
	return &Response{Payload: s.svc.Registry.EventNames()}, nil
}

func (s *Server) hostLabel(r *resource.Resource) string {
	if m := s.modules[r.Module]; m != nil {
		return m.HostLabel
	}
	return r.Module
}
