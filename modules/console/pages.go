package console

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"sort"
	"strings"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static/console.css
var stylesheet []byte

type pageSet struct{ t map[string]*template.Template }

var funcs = template.FuncMap{
	"join": strings.Join,
}

func loadPages() *pageSet {
	ps := &pageSet{t: map[string]*template.Template{}}
	for _, name := range []string{"signin", "continue", "error", "home", "ops", "list", "record", "form", "result"} {
		ps.t[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/partials.html", "templates/"+name+".html"))
	}
	return ps
}

// page is what a template shows.
type page struct {
	Title     string
	Error     string
	Notice    string
	Workspace string
	Return    string
	Next      string // where the continue page goes
	Refresh   int    // seconds until the page reloads itself (work under way)
	Prefix    string // the console's path prefix
	S         *session
	Nav       []navModule
	Ops       []navItem
	List      *listView
	Record    *recordView
	Form      *formView
	Result    *recordView
}

type navModule struct {
	Name  string
	Items []navItem
}

type navItem struct {
	Title, Href, Note string
}

// page fills what every signed-in page shows: who is signed in, and the
// resources the user may see.
func (c *Console) page(k *caller, title string, p *page) *page {
	p.Title, p.S = title, k.b
	byModule := map[string][]navItem{}
	for _, r := range c.d.Registry.All() {
		if k.allows(r.Right("view")) {
			byModule[r.Module] = append(byModule[r.Module], navItem{Title: r.Plural, Href: c.listPath(r)})
		}
	}
	for m, items := range byModule {
		p.Nav = append(p.Nav, navModule{Name: m, Items: items})
	}
	sort.Slice(p.Nav, func(i, j int) bool { return p.Nav[i].Name < p.Nav[j].Name })
	return p
}

func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	p.Prefix = c.prefix
	var buf bytes.Buffer
	if err := c.pages.t[name].Execute(&buf, p); err != nil {
		c.d.Log.ErrorContext(r.Context(), "console: template", "page", name, "error", err.Error())
		http.Error(w, "page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

func (c *Console) css(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(stylesheet)
}

func (c *Console) home(w http.ResponseWriter, r *http.Request, b *session) {
	k := &caller{c: c, b: b}
	c.render(w, r, http.StatusOK, "home", c.page(k, "Console", &page{Ops: c.opsItems(k)}))
}

func (c *Console) ops(w http.ResponseWriter, r *http.Request, b *session) {
	k := &caller{c: c, b: b}
	c.render(w, r, http.StatusOK, "ops", c.page(k, "Operations", &page{Ops: c.opsItems(k)}))
}

// opsItems are the operations pages the user may see: preset lists of
// the generic browser.
func (c *Console) opsItems(k *caller) []navItem {
	all := []struct{ module, plural, query, title, note string }{
		{"automation", "webhookretries", "?f.status=parked&sort=-lastAttemptAt", "Parked webhook deliveries", "deliveries that failed five times; re-run them"},
		{"automation", "webhookdeliveries", "?sort=-createdAt", "Webhook delivery attempts", "every attempt with its status code and duration"},
		{"automation", "pipelineruns", "?sort=-startedAt", "Pipeline runs", "runs with their steps, linked to the Temporal UI"},
		{"audit", "auditrecords", "", "Audit trail", "sign-ins, consents, decrypts and other audited actions"},
		{"developer", "apps", "", "Apps and their secrets", "OAuth clients; rotate a secret (shown once)"},
	}
	var out []navItem
	for _, o := range all {
		if r := c.d.Registry.Get(o.module, o.plural); r != nil && k.allows(r.Right("view")) {
			out = append(out, navItem{Title: o.title, Href: c.listPath(r) + o.query, Note: o.note})
		}
	}
	return out
}
