package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"platform/kernel/auth"
	"platform/kernel/resource"
)

// ModuleRouter adds a module's own routes; every one is rate limited (see
// limit), authenticated, and names the right it needs (deny by default).
type ModuleRouter struct {
	s      *Server
	group  *gin.RouterGroup
	public *gin.RouterGroup
}

// HandlePublic adds an unauthenticated route (an incoming webhook whose
// URL carries its own secret). The handler must check everything itself,
// including the customer it acts for; errors render as everywhere else.
func (m *ModuleRouter) HandlePublic(method, path string, h HandlerFunc) {
	m.public.Handle(method, path, m.s.adapt(h))
}

// HandleRoot adds a public route at the gateway root, outside every
// module and the rate limits ({tracking_url}'s pixel and redirects, which
// check their signed paths before anything else). Errors render as
// everywhere else.
func (s *Server) HandleRoot(method, path string, h HandlerFunc) {
	s.engine.Handle(method, path, s.adapt(h))
}

// HandleRootLimited adds a public route at the gateway root that counts
// against the anonymous rate limit like every unauthenticated call (pages
// for people: the landing page, the API reference).
func (s *Server) HandleRootLimited(method, path string, h HandlerFunc) {
	s.engine.Handle(method, path, s.limit, s.adapt(h))
}

// Handle adds a route that needs right.
func (m *ModuleRouter) Handle(method, path, right string, h HandlerFunc) {
	m.group.Handle(method, path, requireRight(right), m.s.adapt(h))
}

// HandleAnyOf adds a route that needs one of rights at least: the handler
// narrows its answer to what the caller's rights allow (a search across
// resources shows each kind of result only with that kind's view right).
func (m *ModuleRouter) HandleAnyOf(method, path string, rights []string, h HandlerFunc) {
	m.group.Handle(method, path, requireAnyRight(rights), m.s.adapt(h))
}

// Mount registers a module's resources and routes under /<module>.
// A module name or host label mounted twice panics: one would shadow the
// other's routes.
func (s *Server) Mount(ctx context.Context, m *Module) error {
	if s.modules[m.Name] != nil || s.labels[m.HostLabel] != nil {
		panic(fmt.Sprintf("api: module %s (host label %s) is mounted twice", m.Name, m.HostLabel))
	}
	s.modules[m.Name] = m
	s.labels[m.HostLabel] = m
	g := s.engine.Group("/"+m.Name, func(c *gin.Context) { c.Set(keyModule, m) }, s.limit)
	g.GET("/openapi.json", s.adapt(s.moduleOpenAPI(m, "json")))
	g.GET("/openapi.yaml", s.adapt(s.moduleOpenAPI(m, "yaml")))
	api := g.Group("", s.authenticate)
	for _, r := range m.Resources {
		s.svc.Registry.Add(m.Name, r)
		if err := s.svc.Store.EnsureIndexes(ctx, r.Plural, !r.Global, r.Indexes); err != nil {
			return err
		}
		s.mountResource(g, api, r)
	}
	if m.Routes != nil {
		m.Routes(&ModuleRouter{s: s, group: api, public: g})
	}
	return nil
}

func (s *Server) mountResource(public, g *gin.RouterGroup, r *resource.Resource) {
	h := &crud{s: s, r: r}
	base := "/" + r.Plural
	public.GET(base+"/openapi.json", s.adapt(s.resourceOpenAPI(r, "json")))
	public.GET(base+"/openapi.yaml", s.adapt(s.resourceOpenAPI(r, "yaml")))
	g.GET(base, requireRight(r.Right("view")), s.adapt(h.list))
	g.GET(base+"/:id", requireRight(r.Right("view")), s.adapt(h.get))
	if !r.ReadOnly {
		g.POST(base, requireRight(r.Right("create")), s.adapt(h.create))
		g.PUT(base, requireRight(r.Right("edit")), s.adapt(h.replaceByBody))
		g.PUT(base+"/:id", requireRight(r.Right("edit")), s.adapt(h.replace))
		g.PATCH(base+"/:id", requireRight(r.Right("edit")), s.adapt(h.patch))
		g.DELETE(base+"/:id", requireRight(r.Right("delete")), s.adapt(h.delete))
	}
	if len(r.Actions) > 0 {
		g.POST(base+"/:id/actions/:action", s.adapt(func(req *Request) (*Response, error) { return h.action(req, req.Param("action")) }))
	}
	for i := range r.Actions {
		if name := r.Actions[i].Name; r.Actions[i].Short {
			g.POST(base+"/:id/"+name, s.adapt(func(req *Request) (*Response, error) { return h.action(req, name) }))
		}
	}
	for i := range r.Relations {
		if rel := &r.Relations[i]; rel.Key != "" {
			g.GET(base+"/:id/"+rel.Rel, requireRight(r.Right("view")), s.adapt(h.sub(rel)))
		}
	}
}

func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// requireRight answers 403 unless the token's scope grants right.
func requireRight(right string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !auth.From(c.Request.Context()).Allows(right) {
			srv := c.MustGet(keyServer).(*Server)
			srv.renderError(c, Forbidden(right))
			c.Abort()
			return
		}
		c.Next()
	}
}

func requireAnyRight(rights []string) gin.HandlerFunc {
	return func(c *gin.Context) {
		p := auth.From(c.Request.Context())
		for _, r := range rights {
			if p.Allows(r) {
				c.Next()
				return
			}
		}
		c.MustGet(keyServer).(*Server).renderError(c, NewError(http.StatusForbidden, resource.CodeScope, "",
			"the token's scope grants none of %s", strings.Join(rights, ", ")))
		c.Abort()
	}
}

const keyServer = "platform.server"
