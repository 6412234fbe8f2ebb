// Package portal serves the pages a person opening the platform's address
// in a browser finds: the landing page at / (links to the console, the
// Temporal UI, the API documents and reference, the sites, the docs) and
// the API reference at /reference, rendered on the server from the
// combined OpenAPI document. No page has a script.
package portal

import (
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"platform/api"
	"platform/kernel/resource"
	"platform/kernel/settings"
)

// Router is where the pages plug in (api.Server).
type Router interface {
	HandleRootLimited(method, path string, h api.HandlerFunc)
}

var _ Router = (*api.Server)(nil)

// Deps are what the pages show.
type Deps struct {
	Config *settings.Config
	// OpenAPI is the combined document (api.Server.OpenAPIAll).
	OpenAPI func() map[string]any
	// Modules are the mounted modules' names, sorted.
	Modules func() []string
	// Sites lists the gateway site's published pages (nil: none).
	Sites SitesFunc
	// Hosts are the platform's own host names (the gateway's, the token
	// service's, ...): the pages answer on them, on IP addresses and on
	// localhost, and nowhere else, so a customer's domain pointed at the
	// platform before its page claims it never shows them.
	Hosts []string
	// Docs are the documentation pages the platform serves at /docs/
	// (nil: none; the landing page then leaves the link out).
	Docs *Docs
}

// Portal serves the landing page and the reference.
type Portal struct {
	d Deps
	// doc is the combined document in JSON's types, made once: the
	// modules are all mounted before the portal is.
	doc func() (map[string]any, error)
}

// New builds the portal.
func New(d Deps) *Portal {
	p := &Portal{d: d}
	p.doc = sync.OnceValues(p.openAPI)
	return p
}

// Mount adds GET and HEAD of /, /reference, /reference/<module> and,
// with Docs, /docs/ and /docs/<page>.md.
func (p *Portal) Mount(r Router) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.HandleRootLimited(m, "/", p.onPlatformHost(p.landing))
		r.HandleRootLimited(m, "/reference", p.onPlatformHost(p.referenceIndex))
		r.HandleRootLimited(m, "/reference/:module", p.onPlatformHost(p.referenceModule))
		if p.d.Docs != nil {
			r.HandleRootLimited(m, "/docs/", p.onPlatformHost(p.docsIndex))
			r.HandleRootLimited(m, "/docs/:page", p.onPlatformHost(p.docsPage))
		}
	}
}

// onPlatformHost answers as if the route did not exist on any other host.
func (p *Portal) onPlatformHost(h api.HandlerFunc) api.HandlerFunc {
	return func(req *api.Request) (*api.Response, error) {
		host := req.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.TrimSuffix(host, "."))
		if host != "localhost" && net.ParseIP(strings.Trim(host, "[]")) == nil && !slices.Contains(p.d.Hosts, host) {
			return nil, api.NewError(http.StatusNotFound, resource.CodeNotFound, "", "no such endpoint")
		}
		return h(req)
	}
}

// stylesheet is every page's style, inline: its hash is the only style
// the pages' Content-Security-Policy allows.
const stylesheet = `body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:64rem;padding:1rem 1.5rem;color:#1f2328}
a{color:#0969da}h1{font-size:1.8rem}h2{margin-top:2rem;border-bottom:1px solid #d0d7de}
code,pre{font-family:ui-monospace,monospace;font-size:.9em;background:#f6f8fa;padding:.1em .3em;border-radius:4px}
pre{padding:.75rem;overflow-x:auto}table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
.op{border:1px solid #d0d7de;border-radius:6px;padding:.25rem 1rem;margin:1rem 0}
.method{font-weight:700;text-transform:uppercase;margin-right:.5rem}
.muted{color:#59636e}nav a{margin-right:1rem}`

var styleHash = func() string {
	sum := sha256.Sum256([]byte(stylesheet))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// htmlHeaders are the headers of every page: no script, no framing, the
// inline stylesheet alone, links out only. They follow the console's
// (modules/console securityHeaders) until the platform's one
// security-headers middleware for HTML answers (issue 29) replaces this
// function.
func htmlHeaders() http.Header {
	h := http.Header{}
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'none'; style-src "+styleHash+
		"; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	h.Set("Cache-Control", "no-cache")
	return h
}

func page(status int, body []byte) *api.Response {
	return &api.Response{Status: status, Raw: body, ContentType: "text/html; charset=utf-8", Header: htmlHeaders()}
}

// wantsJSON: a client that asks for JSON and not HTML (an API client
// exploring the root) gets the links as JSON.
func wantsJSON(req *api.Request) bool {
	accept := req.Header("Accept")
	return strings.Contains(accept, "json") && !strings.Contains(accept, "text/html")
}
