package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"platform/api"
	"platform/cmd/platform/app"
	"platform/kernel/auth"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/config/credentials"
	"platform/modules/identity"
)

// Platform is the whole platform wired as in production (app.New) on the
// test's own database and task queue, served by an httptest server.
type Platform struct {
	*app.App
	URL       string // gateway base URL
	Customer  *identity.Customer
	Admin     *identity.User
	TaskQueue string
	t         testing.TB
	checks    *responseChecks // run on every answer of Do (CheckOpenAPI installs one)
}

// Options adjust a test platform.
type Options struct {
	RateLimit int    // default: high enough never to interfere
	Store     string // "mongodb" or "sqlite"; default from PLATFORM_TEST_STORE
	Worker    bool   // also run the Temporal worker
	// Workers runs that many separate worker "processes" (each its own
	// App, event dispatcher and Temporal worker on the same store and
	// queue) beside an API that has none: the replicated deployment.
	Workers   int
	Configure func(*settings.Config)
	// Logger receives the platform's and its Temporal client's logs
	// (default: Logger(t)); tests that inspect log lines set it.
	Logger *slog.Logger
}

// NewPlatform starts a platform for the test; everything stops at cleanup.
func NewPlatform(t testing.TB, o Options) *Platform {
	t.Helper()
	st := NewStore(t, o.Store)
	log := o.Logger
	if log == nil {
		log = Logger(t)
	}
	tc, queue := temporalWith(t, log)
	var handler http.Handler = http.NotFoundHandler()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	srv.Listener = api.EnvelopeListener(srv.Listener, log) // as cmd/platform serves
	t.Cleanup(srv.Close)
	cfg, err := settings.Load("test", nil)
	if err != nil {
		t.Fatal(err)
	}
	srvURL := "http://" + srv.Listener.Addr().String()
	u, _ := url.Parse(srvURL)
	cfg.GatewayURL, cfg.AuthURL, cfg.LoginURL = srvURL, srvURL, srvURL
	cfg.TrackingURL = srvURL + "/t"
	cfg.PlatformDomain, cfg.TaskQueue = u.Host, queue
	cfg.RateLimit, cfg.RateLimitAnonymous = 1_000_000, 1_000_000
	// A random credential master key per platform: no master.key file.
	cfg.MasterKey = credentials.EncodeMasterKey(credentials.NewMasterKey())
	if o.RateLimit > 0 {
		cfg.RateLimit = o.RateLimit
	}
	// User code runs in children of the test binary (see SandboxMain).
	cfg.SandboxCommand, cfg.SandboxEnv = []string{os.Args[0], "-test.run=^$"}, []string{SandboxChildEnv + "=1"}
	if o.Configure != nil {
		o.Configure(cfg)
	}
	// The production server with the configuration's time-outs.
	srv.Config = api.NewHTTPServer(cfg, srv.Config.Handler)
	srv.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, err := app.New(ctx, cfg, st, tc, log)
	if err != nil {
		t.Fatalf("app: %v", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	if !o.Worker && o.Workers == 0 {
		// No worker will ever run this test's event dispatches: do not
		// leave them queued on the shared Temporal server.
		a.Events.Notifier = nil
	}
	handler = a.API.Handler()
	p := &Platform{App: a, URL: srvURL, TaskQueue: queue, t: t, checks: &responseChecks{}}
	res, err := a.Seed(ctx, "test-password")
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	p.Customer, p.Admin = res.Customer, res.Admin
	if o.Worker {
		startWorker(t, a, queue)
	}
	for i := 0; i < o.Workers; i++ {
		wa, err := app.New(ctx, cfg, st, tc, log)
		if err != nil {
			t.Fatalf("worker app: %v", err)
		}
		t.Cleanup(func() { _ = wa.Close() })
		startWorker(t, wa, queue)
	}
	return p
}

func startWorker(t testing.TB, a *app.App, queue string) {
	w := a.Worker(queue)
	if err := w.Start(); err != nil {
		t.Fatalf("worker: %v", err)
	}
	t.Cleanup(w.Stop)
}

// For returns the platform bound to another test (a subtest), so that Do
// reports failures there; it shares everything else with p.
func (p *Platform) For(t testing.TB) *Platform {
	c := *p
	c.t = t
	return &c
}

// Ctx returns a context of the test customer.
func (p *Platform) Ctx() context.Context {
	return tenant.WithCustomer(context.Background(), p.Customer.ID)
}

// Token mints an access token of the admin user with the given scopes.
func (p *Platform) Token(scopes ...string) string {
	return p.TokenFor(p.Customer.ID, p.Admin.ID, scopes...)
}

// TokenFor mints a token for any customer and user.
func (p *Platform) TokenFor(customer, user string, scopes ...string) string {
	p.t.Helper()
	tok, _, err := p.Minter.Mint(context.Background(), auth.MintInput{Customer: customer, User: user, ClientID: "test", Scopes: scopes})
	if err != nil {
		p.t.Fatalf("mint: %v", err)
	}
	return tok
}

// OtherCustomer creates a second tenant with an admin and returns a token factory for it.
func (p *Platform) OtherCustomer(slug string) (*identity.Customer, *identity.User) {
	p.t.Helper()
	ctx := context.Background()
	c, _, err := p.Identity.EnsureCustomer(ctx, slug, slug, []string{"*"})
	if err != nil {
		p.t.Fatal(err)
	}
	u, _, err := p.Identity.EnsureUser(tenant.WithCustomer(ctx, c.ID), "admin@"+slug+".example", "Admin", "pw-"+slug, []string{"*"})
	if err != nil {
		p.t.Fatal(err)
	}
	return c, u
}

// Resp is an answer of the API.
type Resp struct {
	Status int
	Header http.Header
	Body   []byte
	Env    map[string]any // the decoded envelope, when JSON
}

// Payload returns payload as a record.
func (r *Resp) Payload() store.Doc {
	m, _ := r.Env["payload"].(map[string]any)
	return m
}

// List returns payload as a list of records.
func (r *Resp) List() []map[string]any {
	a, _ := r.Env["payload"].([]any)
	out := make([]map[string]any, 0, len(a))
	for _, e := range a {
		m, _ := e.(map[string]any)
		out = append(out, m)
	}
	return out
}

// Meta returns meta.
func (r *Resp) Meta() map[string]any {
	m, _ := r.Env["meta"].(map[string]any)
	return m
}

// ErrorCodes lists meta.errors[].code.
func (r *Resp) ErrorCodes() []string {
	errs, _ := r.Meta()["errors"].([]any)
	var out []string
	for _, e := range errs {
		m, _ := e.(map[string]any)
		out = append(out, m["code"].(string))
	}
	return out
}

// Do sends a request; body is JSON-encoded unless it is a string or []byte.
// It fails the test on a transport error, so call it on the test's own
// goroutine only; spawned goroutines use TryDo.
func (p *Platform) Do(method, path, token string, body any, header ...string) *Resp {
	p.t.Helper()
	r, err := p.TryDo(method, path, token, body, header...)
	if err != nil {
		p.t.Fatal(err)
	}
	return r
}

// TryDo is Do for goroutines a test spawns: a request that cannot be made
// or sent is an error to hand back to the test's goroutine (t.FailNow
// works only there). The answer checks still run (they report through
// t.Errorf, which any goroutine may call).
func (p *Platform) TryDo(method, path, token string, body any, header ...string) (*Resp, error) {
	p.t.Helper()
	sent, err := encodeBody(body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: encode body: %w", method, path, err)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(sent)
	}
	req, err := http.NewRequest(method, p.URL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
			continue
		}
		if header[i+1] == "" { // an empty value leaves the header out altogether
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	res, err := apiClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	r := &Resp{Status: res.StatusCode, Header: res.Header, Body: data}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(data, &r.Env)
	}
	p.checks.run(p.t, req, sent, res, data)
	return r, nil
}

// encodeBody is a request body's bytes: JSON unless it is a string or []byte.
func encodeBody(body any) ([]byte, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(b), nil
	case []byte:
		return b, nil
	default:
		return json.Marshal(b)
	}
}

// responseChecks are run on every answer of Do; they report through t.Errorf.
type responseChecks struct {
	mu   sync.Mutex
	list []func(t testing.TB, req *http.Request, reqBody []byte, res *http.Response, resBody []byte)
}

func (c *responseChecks) add(f func(t testing.TB, req *http.Request, reqBody []byte, res *http.Response, resBody []byte)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, f)
}

func (c *responseChecks) run(t testing.TB, req *http.Request, reqBody []byte, res *http.Response, resBody []byte) {
	t.Helper()
	c.mu.Lock()
	list := append([]func(testing.TB, *http.Request, []byte, *http.Response, []byte){}, c.list...)
	c.mu.Unlock()
	for _, f := range list {
		f(t, req, reqBody, res, resBody)
	}
}
