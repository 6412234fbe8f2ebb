package cms

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"platform/api"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/cms/blocks"
	"platform/modules/cms/pages"
)

// SiteRouter is where the site plugs in (api.Server).
type SiteRouter interface {
	HandleRoot(method, path string, h api.HandlerFunc)
	RouteHosts(route func(*http.Request) *http.Request)
}

var _ SiteRouter = (*api.Server)(nil)

// Site serves the published pages (docs/cms.md): GET /site/<locale>/<slug>
// on the gateway for the customer PLATFORM_SITE_CUSTOMER names, and on a
// page's custom domain, where / is that page and /site/<locale>/<slug>
// the same customer's other published pages. It is public and answers
// published pages only; everything else is the 404 page.
type Site struct {
	Store store.Store
	// Customer is the customer whose site the gateway serves; "" (or an
	// error) when none is configured.
	Customer func(ctx context.Context) (string, error)
	// PlatformDomain's hosts, and PlatformHosts (the gateway's, the
	// token service's, ...), are never custom domains: their requests
	// skip the lookup.
	PlatformDomain string
	PlatformHosts  []string
	Log            *slog.Logger
	domains        domainCache
}

// Stylesheet is the path of the pages' stylesheet (no locale has "_").
const Stylesheet = "/site/_/site.css"

// lookupTimeout bounds the store read of a custom domain.
const lookupTimeout = 2 * time.Second

// Mount adds the routes and the custom-domain router.
func (s *Site) Mount(r SiteRouter) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.HandleRoot(m, "/site/*path", s.serve)
	}
	r.RouteHosts(s.routeHost)
}

type domainKey struct{}

// routeHost sends every request to a custom domain into /site: / to the
// domain's page, /site/... as on the gateway, any other path to the 404
// page. The platform's API is never served on a customer's domain.
func (s *Site) routeHost(r *http.Request) *http.Request {
	host := hostName(r.Host)
	if !pages.ValidHost(host) || s.isPlatformHost(host) {
		return r
	}
	claim, ok := s.domains.lookup(r.Context(), s.Store, host)
	if !ok {
		return r
	}
	if !strings.HasPrefix(r.URL.Path, "/site/") {
		r.URL.Path = "/site/-" + r.URL.Path
	}
	if r.URL.Path == "/site/-/" {
		r.URL.Path = "/site/"
	}
	r.URL.RawPath = ""
	return r.WithContext(context.WithValue(r.Context(), domainKey{}, siteDomain{Domain: claim, Host: host}))
}

func (s *Site) isPlatformHost(host string) bool {
	return host == s.PlatformDomain || strings.HasSuffix(host, "."+s.PlatformDomain) || slices.Contains(s.PlatformHosts, host)
}

type siteDomain struct {
	pages.Domain
	Host string
}

func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		hostport = h
	}
	return strings.ToLower(strings.TrimSuffix(hostport, "."))
}

func (s *Site) serve(req *api.Request) (*api.Response, error) {
	path := strings.TrimPrefix(req.Param("path"), "/")
	if "/site/"+path == Stylesheet {
		return s.css(req), nil
	}
	page, err := s.find(req.Ctx, path)
	if err != nil {
		return nil, err
	}
	return s.answer(req, page), nil
}

// find is the published page the path names for the request's customer;
// nil when there is none.
func (s *Site) find(ctx context.Context, path string) (store.Doc, error) {
	d, onDomain := ctx.Value(domainKey{}).(siteDomain)
	customer := d.Customer
	if !onDomain {
		customer = s.gatewayCustomer(ctx)
	}
	if customer == "" {
		return nil, nil
	}
	ctx = tenant.WithCustomer(ctx, customer)
	if onDomain && path == "" {
		return s.published(ctx, query.AllOf(query.ID(d.Page), query.Eq("customDomain", d.Host)))
	}
	locale, slug, ok := strings.Cut(path, "/")
	if !ok || !pages.ValidSlug(slug) || len(locale) > 12 {
		return nil, nil
	}
	return s.published(ctx, query.AllOf(query.Eq("locale", locale), query.Eq("slug", slug)))
}

func (s *Site) gatewayCustomer(ctx context.Context) string {
	if s.Customer == nil {
		return ""
	}
	c, err := s.Customer(ctx)
	if err != nil {
		s.Log.WarnContext(ctx, "site: the gateway's customer is unknown", "error", err.Error())
	}
	return c
}

func (s *Site) published(ctx context.Context, where query.Expr) (store.Doc, error) {
	docs, err := s.Store.Collection(pages.Pages).Find(ctx, store.FindOptions{Limit: 1, Fields: []string{"html", "renderHash", "locale"},
		Filter: query.AllOf(where, query.Eq("published", true))})
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return docs[0], nil
}

// answer is the page's HTML with its ETag, 304 when the client has it,
// 503 while a new page awaits its first render, else the 404 page.
func (s *Site) answer(req *api.Request, page store.Doc) *api.Response {
	if page == nil {
		return htmlAnswer(http.StatusNotFound, blocks.NotFound(""), nil)
	}
	html, _ := page["html"].(string)
	if html == "" {
		h := http.Header{"Retry-After": {"2"}, "Cache-Control": {"no-store"}}
		return htmlAnswer(http.StatusServiceUnavailable, blocks.NotFound(str(page["locale"])), h)
	}
	etag := `"` + str(page["renderHash"]) + `"`
	h := http.Header{"Etag": {etag}, "Cache-Control": {"public, max-age=60, stale-while-revalidate=300"}}
	if matches(req.Header("If-None-Match"), etag) {
		return &api.Response{Status: http.StatusNotModified, Raw: []byte{}, Header: h}
	}
	return htmlAnswer(http.StatusOK, html, h)
}

// matches reads If-None-Match: a list of entity tags, or *.
func matches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

func htmlAnswer(status int, body string, h http.Header) *api.Response {
	if h == nil {
		h = http.Header{"Cache-Control": {"public, max-age=60"}}
	}
	secure(h)
	return &api.Response{Status: status, Raw: []byte(body), ContentType: "text/html; charset=utf-8", Header: h}
}

// secure sets the headers every site answer has: no script may run, only
// the embeds' origins may be framed, and the site frames nobody's page.
func secure(h http.Header) {
	csp := "default-src 'none'; img-src 'self' https: data:; style-src 'self'; frame-src " + strings.Join(blocks.FrameSources(), " ") +
		"; form-action 'self'; base-uri 'none'; frame-ancestors 'self'"
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
}

func (s *Site) css(req *api.Request) *api.Response {
	h := http.Header{"Cache-Control": {"public, max-age=3600"}, "Etag": {cssETag()}}
	secure(h)
	if matches(req.Header("If-None-Match"), cssETag()) {
		return &api.Response{Status: http.StatusNotModified, Raw: []byte{}, Header: h}
	}
	return &api.Response{Raw: blocks.CSS(), ContentType: "text/css; charset=utf-8", Header: h}
}

// SitePage is a published page of the gateway's site, as the landing page
// links it.
type SitePage struct{ Title, Path string }

// Pages lists up to limit published pages of the gateway's customer (none
// when no customer is configured), in the store's natural order: a cheap
// read (unsorted pages are the fast ones on every store).
func (s *Site) Pages(ctx context.Context, limit int) ([]SitePage, error) {
	customer := s.gatewayCustomer(ctx)
	if customer == "" {
		return nil, nil
	}
	ctx = tenant.WithCustomer(ctx, customer)
	docs, err := s.Store.Collection(pages.Pages).Find(ctx, store.FindOptions{Limit: int64(limit), Fields: []string{"title", "locale", "slug"},
		Filter: query.Eq("published", true)})
	if err != nil {
		return nil, err
	}
	out := make([]SitePage, 0, len(docs))
	for _, d := range docs {
		out = append(out, SitePage{Title: str(d["title"]), Path: "/site/" + str(d["locale"]) + "/" + str(d["slug"])})
	}
	return out, nil
}
