package portal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strings"

	"platform/api"
	"platform/kernel/resource"
)

// The API reference: HTML made on the server from the combined OpenAPI
// document (api.Server.OpenAPIAll), one page per module, so it is never
// out of step with the API and needs no script from anywhere.

type doc = map[string]any

// operation is one method of one path, as the reference shows it.
type operation struct {
	ID, Method, Path, Summary, Description string
	Params                                 []param
	Body                                   template.HTML // the request body's type, if any
	OK                                     []answer      // 2xx answers
	Errors                                 string        // the error statuses
}

type param struct {
	Name, In, Description string
	Required              bool
	Type                  template.HTML
}

type answer struct {
	Status string
	Type   template.HTML
}

// tagOps are a tag's operations in path order.
type tagOps struct {
	Name, Description string
	Ops               []operation
}

// schemaView is a component schema with its properties.
type schemaView struct {
	Name, Description string
	Type              template.HTML
	Props             []property
}

type property struct {
	Name, Description string
	Required          bool
	Type              template.HTML
}

var methods = []string{"get", "post", "put", "patch", "delete"}

// openAPI is the combined document in JSON's types (maps, slices,
// float64), whatever types its builders used.
func (p *Portal) openAPI() (doc, error) {
	b, err := json.Marshal(p.d.OpenAPI())
	if err != nil {
		return nil, err
	}
	var d doc
	return d, json.Unmarshal(b, &d)
}

func mapOf(v any) doc      { m, _ := v.(map[string]any); return m }
func listOf(v any) []any   { l, _ := v.([]any); return l }
func strOf(v any) string   { s, _ := v.(string); return s }
func refName(s doc) string { return strings.TrimPrefix(strOf(s["$ref"]), "#/components/schemas/") }

// groups are the x-tagGroups: module name -> its tags.
func groups(d doc) (names []string, tags map[string][]string) {
	tags = map[string][]string{}
	for _, g := range listOf(d["x-tagGroups"]) {
		name := strOf(mapOf(g)["name"])
		names = append(names, name)
		for _, t := range listOf(mapOf(g)["tags"]) {
			tags[name] = append(tags[name], strOf(t))
		}
	}
	return names, tags
}

// typeHTML is a schema's type in a few words, with links to the
// component schemas it names.
func typeHTML(s doc) template.HTML {
	if s == nil {
		return "any"
	}
	if n := refName(s); n != "" {
		return template.HTML(fmt.Sprintf(`<a href="#schema-%s">%s</a>`, template.HTMLEscapeString(n), template.HTMLEscapeString(n)))
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if parts := listOf(s[k]); len(parts) > 0 {
			return joinTypes(parts, map[string]string{"allOf": " and ", "anyOf": " or ", "oneOf": " or "}[k])
		}
	}
	t := strOf(s["type"])
	if l := listOf(s["type"]); len(l) > 0 {
		var ts []string
		for _, x := range l {
			ts = append(ts, strOf(x))
		}
		t = strings.Join(ts, " or ")
	}
	switch {
	case t == "array":
		return "array of " + typeHTML(mapOf(s["items"]))
	case t == "object" && len(mapOf(s["properties"])) > 0:
		var ps []string
		for _, k := range sortedKeys(mapOf(s["properties"])) {
			ps = append(ps, template.HTMLEscapeString(k)+": "+string(typeHTML(mapOf(mapOf(s["properties"])[k]))))
		}
		return template.HTML("object {" + strings.Join(ps, ", ") + "}")
	case t == "":
		t = "any"
	}
	if f := strOf(s["format"]); f != "" {
		t += " (" + f + ")"
	}
	if enum := listOf(s["enum"]); len(enum) > 0 {
		var vs []string
		for _, e := range enum {
			vs = append(vs, fmt.Sprint(e))
		}
		t += ": one of " + strings.Join(vs, ", ")
	}
	return template.HTML(template.HTMLEscapeString(t))
}

func joinTypes(parts []any, sep string) template.HTML {
	var out []string
	for _, p := range parts {
		out = append(out, string(typeHTML(mapOf(p))))
	}
	return template.HTML(strings.Join(out, sep))
}

func sortedKeys(m doc) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// moduleOps are the operations of the paths below /<module>/, by tag.
func moduleOps(d doc, module string, tagNames []string) []tagOps {
	descriptions := map[string]string{}
	for _, t := range listOf(d["tags"]) {
		descriptions[strOf(mapOf(t)["name"])] = strOf(mapOf(t)["description"])
	}
	byTag := map[string][]operation{}
	paths := mapOf(d["paths"])
	for _, path := range sortedKeys(paths) {
		if !strings.HasPrefix(path, "/"+module+"/") {
			continue
		}
		item := mapOf(paths[path])
		for _, m := range methods {
			if op := mapOf(item[m]); op != nil {
				tag := strOf(listOf(op["tags"])[0])
				byTag[tag] = append(byTag[tag], opView(m, path, op))
			}
		}
	}
	var out []tagOps
	for _, t := range tagNames {
		out = append(out, tagOps{Name: t, Description: descriptions[t], Ops: byTag[t]})
	}
	return out
}

func opView(method, path string, op doc) operation {
	o := operation{ID: strOf(op["operationId"]), Method: method, Path: path,
		Summary: strOf(op["summary"]), Description: strOf(op["description"])}
	for _, p := range listOf(op["parameters"]) {
		p := mapOf(p)
		o.Params = append(o.Params, param{Name: strOf(p["name"]), In: strOf(p["in"]), Description: strOf(p["description"]),
			Required: p["required"] == true, Type: typeHTML(mapOf(p["schema"]))})
	}
	if body := mapOf(op["requestBody"]); body != nil {
		for _, ct := range sortedKeys(mapOf(body["content"])) {
			o.Body += template.HTML("<code>"+template.HTMLEscapeString(ct)+"</code>: ") + typeHTML(mapOf(mapOf(mapOf(body["content"])[ct])["schema"])) + "<br>"
		}
	}
	var errs []string
	for _, status := range sortedKeys(mapOf(op["responses"])) {
		res := mapOf(mapOf(op["responses"])[status])
		if strings.HasPrefix(status, "2") || strings.HasPrefix(status, "3") {
			o.OK = append(o.OK, answer{Status: status + " " + strOf(res["description"]), Type: typeHTML(mapOf(mapOf(mapOf(res["content"])["application/json"])["schema"]))})
		} else {
			errs = append(errs, status)
		}
	}
	o.Errors = strings.Join(errs, ", ")
	return o
}

// usedSchemas are the component schemas the operations name, directly or
// through other schemas, sorted.
func usedSchemas(d doc, module string) []schemaView {
	all := mapOf(mapOf(d["components"])["schemas"])
	seen := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if n := refName(v); n != "" && !seen[n] && all[n] != nil {
				seen[n] = true
				visit(all[n])
			}
			for _, c := range v {
				visit(c)
			}
		case []any:
			for _, c := range v {
				visit(c)
			}
		}
	}
	for path, item := range mapOf(d["paths"]) {
		if strings.HasPrefix(path, "/"+module+"/") {
			visit(item)
		}
	}
	var out []schemaView
	for _, n := range sortedKeys(all) {
		if seen[n] {
			out = append(out, schemaViewOf(n, mapOf(all[n])))
		}
	}
	return out
}

func schemaViewOf(name string, s doc) schemaView {
	v := schemaView{Name: name, Description: strOf(s["description"]), Type: typeHTML(s)}
	props := mapOf(s["properties"])
	if len(props) == 0 {
		return v
	}
	v.Type = "object"
	var required []string
	for _, r := range listOf(s["required"]) {
		required = append(required, strOf(r))
	}
	for _, k := range sortedKeys(props) {
		ps := mapOf(props[k])
		desc := strOf(ps["description"])
		if ps["readOnly"] == true {
			desc = strings.TrimSpace("read-only. " + desc)
		}
		v.Props = append(v.Props, property{Name: k, Description: desc, Required: slices.Contains(required, k), Type: typeHTML(ps)})
	}
	return v
}

// codeSpans is text with its `code` spans set as code (descriptions use
// Markdown's backticks).
func codeSpans(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, part := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(template.HTMLEscapeString(part))
	}
	return template.HTML(b.String())
}

var funcs = template.FuncMap{"code": codeSpans}

var referenceIndexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>API reference</title><style>{{.CSS}}</style></head>
<body><nav><a href="/">Platform</a><a href="/openapi.json">openapi.json</a><a href="/openapi.yaml">openapi.yaml</a></nav>
<main><h1>API reference</h1><p>{{.Info}}</p>
<p>Every route needs <code>Authorization: Bearer &lt;token&gt;</code> unless it says otherwise; the description of each says the right it needs.
Answers are the envelope <code>{status, payload, meta}</code>; errors name the field and why.</p>
<table><tr><th>Module</th><th>Resources and route groups</th><th>Operations</th></tr>
{{range .Modules}}<tr><td><a href="/reference/{{.Name}}">{{.Name}}</a></td><td>{{range $i, $t := .Tags}}{{if $i}}, {{end}}{{$t}}{{end}}</td><td>{{.Count}}</td></tr>
{{end}}</table></main></body></html>
`))

var referenceModulePage = template.Must(template.New("module").Funcs(funcs).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Module}} API reference</title><style>{{.CSS}}</style></head>
<body><nav><a href="/">Platform</a><a href="/reference">All modules</a><a href="/{{.Module}}/openapi.json">{{.Module}}/openapi.json</a></nav>
<main><h1>{{.Module}}</h1>
<p>Paths are relative to the gateway; the same routes answer at the module's host without the <code>/{{.Module}}</code> prefix.</p>
<ul>{{range .Tags}}<li><a href="#tag-{{.Name}}">{{.Name}}</a> <span class="muted">{{.Description}}</span></li>{{end}}</ul>
{{range .Tags}}<h2 id="tag-{{.Name}}">{{.Name}}</h2><p>{{code .Description}}</p>
{{range .Ops}}<section class="op" id="{{.ID}}"><h3><span class="method">{{.Method}}</span><code>{{.Path}}</code></h3>
<p>{{.Summary}}{{with .Description}}. {{code .}}{{end}}</p>
{{with .Params}}<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Description</th></tr>
{{range .}}<tr><td><code>{{.Name}}</code>{{if .Required}} (required){{end}}</td><td>{{.In}}</td><td>{{.Type}}</td><td>{{code .Description}}</td></tr>
{{end}}</table>{{end}}
{{with .Body}}<p>Body: {{.}}</p>{{end}}
{{range .OK}}<p>Answer {{.Status}}: {{.Type}}</p>{{end}}
<p class="muted">Errors: {{.Errors}} (<a href="#schema-ErrorEnvelope">ErrorEnvelope</a>). Operation id <code>{{.ID}}</code>.</p></section>
{{end}}{{end}}
<h2 id="schemas">Schemas</h2>
{{range .Schemas}}<section id="schema-{{.Name}}"><h3>{{.Name}}</h3>{{with .Description}}<p>{{code .}}</p>{{end}}
{{if .Props}}<table><tr><th>Field</th><th>Type</th><th>Description</th></tr>
{{range .Props}}<tr><td><code>{{.Name}}</code>{{if .Required}} (required){{end}}</td><td>{{.Type}}</td><td>{{code .Description}}</td></tr>
{{end}}</table>{{else}}<p>{{.Type}}</p>{{end}}</section>
{{end}}</main></body></html>
`))

func (p *Portal) referenceIndex(*api.Request) (*api.Response, error) {
	d, err := p.doc()
	if err != nil {
		return nil, err
	}
	names, tags := groups(d)
	type row struct {
		Name  string
		Tags  []string
		Count int
	}
	var rows []row
	for _, n := range names {
		count := 0
		for _, t := range moduleOps(d, n, tags[n]) {
			count += len(t.Ops)
		}
		rows = append(rows, row{Name: n, Tags: tags[n], Count: count})
	}
	return renderPage(referenceIndexPage, map[string]any{"CSS": template.CSS(stylesheet), "Info": strOf(mapOf(d["info"])["description"]), "Modules": rows})
}

func (p *Portal) referenceModule(req *api.Request) (*api.Response, error) {
	d, err := p.doc()
	if err != nil {
		return nil, err
	}
	module := req.Param("module")
	names, tags := groups(d)
	if !slices.Contains(names, module) {
		return nil, api.NewError(http.StatusNotFound, resource.CodeNotFound, "module", "no module %q: /reference lists them", module)
	}
	return renderPage(referenceModulePage, map[string]any{"CSS": template.CSS(stylesheet), "Module": module,
		"Tags": moduleOps(d, module, tags[module]), "Schemas": usedSchemas(d, module)})
}

func renderPage(t *template.Template, data any) (*api.Response, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, err
	}
	return page(http.StatusOK, b.Bytes()), nil
}
