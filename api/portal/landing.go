package portal

import (
	"bytes"
	"context"
	"html/template"
	"net/http"

	"platform/api"
)

// Link is one entry of the landing page.
type Link struct {
	Title string `json:"title"`
	URL   string `json:"url"`
	Note  string `json:"note,omitempty"`
}

// Section is a heading of the landing page with its links.
type Section struct {
	Title string `json:"title"`
	Links []Link `json:"links"`
}

// SitesFunc lists the published pages of the gateway's site.
type SitesFunc func(ctx context.Context) ([]Link, error)

var landingPage = template.Must(template.New("landing").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Platform</title><style>{{.CSS}}</style></head>
<body><main><h1>Platform</h1>
<p class="muted">This address serves the platform's REST API; the pages below are for people.</p>
{{range .Sections}}<h2>{{.Title}}</h2><ul>
{{range .Links}}<li><a href="{{.URL}}">{{.Title}}</a>{{with .Note}} <span class="muted">{{.}}</span>{{end}}</li>
{{end}}</ul>
{{end}}</main></body></html>
`))

// sections are the landing page's links; Temporal UI only when one is
// known, the site's pages only when it has published some.
func (p *Portal) sections(ctx context.Context) []Section {
	cfg := p.d.Config
	tools := []Link{{Title: "Admin console", URL: cfg.ConsoleURL(), Note: "sign in as a customer's admin"}}
	if ui := cfg.TemporalUI(); ui != "" {
		tools = append(tools, Link{Title: "Temporal UI", URL: ui, Note: "workflows: pipeline runs, deliveries, sends"})
	}
	apiLinks := []Link{
		{Title: "API reference", URL: "/reference", Note: "every module's routes, rights and fields"},
		{Title: "OpenAPI document of every module (JSON)", URL: "/openapi.json"},
		{Title: "OpenAPI document of every module (YAML)", URL: "/openapi.yaml"},
	}
	for _, m := range p.d.Modules() {
		apiLinks = append(apiLinks, Link{Title: "OpenAPI of " + m, URL: "/" + m + "/openapi.json"})
	}
	apiLinks = append(apiLinks,
		Link{Title: "OAuth 2.0 server metadata", URL: cfg.AuthURL + "/.well-known/oauth-authorization-server", Note: "for third-party apps (RFC 8414)"},
		Link{Title: "Readiness", URL: "/readyz"})
	out := []Section{{Title: "Tools", Links: tools}, {Title: "API", Links: apiLinks}}
	if p.d.Sites != nil {
		if pages, err := p.d.Sites(ctx); err == nil && len(pages) > 0 {
			out = append(out, Section{Title: "Site", Links: pages})
		}
	}
	if p.d.Docs != nil {
		out = append(out, Section{Title: "Documentation", Links: []Link{{Title: "Guides of every module", URL: "/docs/",
			Note: "each starts with a walk-through that works on platform dev"}}})
	}
	return out
}

// landing answers GET /: the page in a browser, the same links as JSON
// for a client that asks for JSON.
func (p *Portal) landing(req *api.Request) (*api.Response, error) {
	sections := p.sections(req.Ctx)
	if wantsJSON(req) {
		return &api.Response{Payload: map[string]any{"sections": sections}}, nil
	}
	var b bytes.Buffer
	if err := landingPage.Execute(&b, map[string]any{"CSS": template.CSS(stylesheet), "Sections": sections}); err != nil {
		return nil, err
	}
	return page(http.StatusOK, b.Bytes()), nil
}
