package portal

import (
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strings"

	"platform/api"
	"platform/kernel/render"
	"platform/kernel/resource"
)

// Docs are the documentation pages (docs/*.md of the repository, which
// the binary embeds), served as HTML at /docs/<name>.md so that links
// between pages work as they do in the repository.
type Docs struct{ FS fs.FS }

var docsPage = template.Must(template.New("doc").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Title}}</title><style>{{.CSS}}</style></head>
<body><nav><a href="/">Platform</a><a href="/docs/">Docs</a><a href="/reference">API reference</a></nav>
<main>{{if .Body}}{{.Body}}{{else}}<h1>Documentation</h1>
<p>One guide per module and subsystem; each module's guide starts with a walk-through to paste into a shell while <code>platform dev</code> runs.</p>
<ul>{{range .Pages}}<li><a href="/docs/{{.URL}}">{{.Title}}</a> <span class="muted">{{.URL}}</span></li>{{end}}</ul>{{end}}
</main></body></html>
`))

var firstHeading = regexp.MustCompile(`(?m)^# (.+)$`)

// pages are the embedded pages with their titles (first heading), by name.
func (d *Docs) pages() []Link {
	names, _ := fs.Glob(d.FS, "*.md")
	sort.Strings(names)
	out := make([]Link, 0, len(names))
	for _, n := range names {
		b, _ := fs.ReadFile(d.FS, n)
		title := n
		if m := firstHeading.FindSubmatch(b); m != nil {
			title = strings.Trim(string(m[1]), "`")
		}
		out = append(out, Link{Title: title, URL: n})
	}
	return out
}

func (p *Portal) docsIndex(*api.Request) (*api.Response, error) {
	return renderPage(docsPage, map[string]any{"CSS": template.CSS(stylesheet), "Title": "Documentation", "Pages": p.d.Docs.pages()})
}

// docsPage renders one page through the platform's Markdown pipeline
// (kernel/render: goldmark, GitHub tables, sanitised, heading ids).
func (p *Portal) docsPage(req *api.Request) (*api.Response, error) {
	name := req.Param("page")
	b, err := fs.ReadFile(p.d.Docs.FS, name)
	if path.Ext(name) != ".md" || strings.Contains(name, "/") || err != nil {
		return nil, api.NewError(http.StatusNotFound, resource.CodeNotFound, "", "no page %q: /docs/ lists them", name)
	}
	out, err := render.Render(render.Input{Body: string(b), Format: render.Markdown})
	if err != nil {
		return nil, err
	}
	title := name
	if m := firstHeading.FindSubmatch(b); m != nil {
		title = strings.Trim(string(m[1]), "`")
	}
	return renderPage(docsPage, map[string]any{"CSS": template.CSS(stylesheet), "Title": title, "Body": template.HTML(out.HTML)})
}
