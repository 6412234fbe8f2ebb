// Package console is the admin console at /console: server-rendered pages
// (html/template, no script at all) for a customer's admins. It signs in
// through the platform's own OAuth flow as a public client with PKCE, keeps
// the tokens server-side behind an HTTP-only session cookie, and does every
// read and write by calling the API in-process with the user's own access
// token, so it can never do more than the user may (docs/console.md).
package console

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"platform/api"
	"platform/kernel/resource"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/identity"
)

// Deps are what the console uses; the composition root fills them.
type Deps struct {
	Config   *settings.Config
	Store    store.Store
	Identity *identity.Service
	Registry *resource.Registry
	// Verifier reads the access tokens the sign-in returns (the user, the
	// customer and the granted rights), as the API does.
	Verifier api.TokenVerifier
	// Handler is the platform's HTTP handler: the console calls the API and
	// the token endpoint through it, in-process.
	Handler http.Handler
	Log     *slog.Logger
	// DefaultWorkspace prefills the sign-in form (a customer's slug).
	DefaultWorkspace string
}

// Console serves the admin console.
type Console struct {
	d        Deps
	base     *url.URL // the console's public address (settings.ConsoleURL)
	prefix   string   // its path on that host: "/console" or ""
	sessions *sessions
	mux      *http.ServeMux
	pages    *pageSet
	gateway  string // scheme and host of the gateway: the in-process calls' URLs
}

// New builds the console.
func New(d Deps) (*Console, error) {
	base, err := url.Parse(d.Config.ConsoleURL())
	if err != nil {
		return nil, err
	}
	c := &Console{d: d, base: base, prefix: strings.TrimRight(base.Path, "/"),
		sessions: &sessions{store: d.Store, ttl: d.Config.Console.SessionTTL, secure: base.Scheme == "https"}}
	if c.sessions.ttl == 0 {
		c.sessions.ttl = 8 * time.Hour
	}
	gw, err := url.Parse(d.Config.GatewayURL)
	if err != nil {
		return nil, err
	}
	c.gateway = gw.Scheme + "://" + gw.Host
	c.pages = loadPages()
	c.routes()
	return c, nil
}

// Mount serves the console at /console on the gateway, and at the root of
// console.<platform domain>.
func (c *Console) Mount(s *api.Server) {
	h := gin.WrapH(c)
	s.Engine().Any("/console", h)
	s.Engine().Any("/console/*path", h)
	s.RouteHosts(c.routeHost)
}

type hostKey struct{}

// routeHost sends every request for console.<domain> (or the configured
// console host) into /console.
func (c *Console) routeHost(r *http.Request) *http.Request {
	host := hostName(r.Host)
	if host != "console."+hostName(c.d.Config.PlatformDomain) && !(c.prefix == "" && host == hostName(c.base.Host)) {
		return r
	}
	if !strings.HasPrefix(r.URL.Path, "/console/") && r.URL.Path != "/console" {
		r.URL.Path = "/console" + r.URL.Path
		r.URL.RawPath = ""
	}
	return r.WithContext(context.WithValue(r.Context(), hostKey{}, host))
}

func hostName(hostport string) string {
	h := hostport
	if i := strings.LastIndex(h, ":"); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// ServeHTTP answers every console request with the security headers; a
// request that reached the console on another address than its configured
// one goes there first (cookies and the sign-in's redirect URI are bound to
// that one address).
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w, c.d.Config.LoginURL)
	if !c.canonical(r) {
		to := c.base.String() + strings.TrimPrefix(r.URL.Path, "/console")
		if r.URL.RawQuery != "" {
			to += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, to, http.StatusFound)
		return
	}
	c.mux.ServeHTTP(w, r.WithContext(withPeer(r.Context(), r)))
}

// canonical: the request reached the console by its configured address:
// the gateway path when the console lives there (whatever the Host: a
// proxy may rewrite it), or the console's own host.
func (c *Console) canonical(r *http.Request) bool {
	host, viaHost := r.Context().Value(hostKey{}).(string)
	if !viaHost {
		return c.prefix != ""
	}
	return host == hostName(c.base.Host)
}

// link is a path of the console as the browser sees it.
func (c *Console) link(path string) string { return c.prefix + path }

// securityHeaders: no script at all, styles and images only from the
// console itself, forms only to itself and (for the redirect that follows
// the sign-in form) the sign-in screen, no framing, nothing cached.
func securityHeaders(w http.ResponseWriter, loginURL string) {
	formAction := "'self'"
	if u, err := url.Parse(loginURL); err == nil && u.Host != "" {
		formAction += " " + u.Scheme + "://" + u.Host
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self'; form-action "+formAction+
		"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	h.Set("Cache-Control", "no-store")
}

var _ http.Handler = (*Console)(nil)
