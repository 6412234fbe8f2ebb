package console

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"platform/kernel/jsonlimit"
	"platform/kernel/resource"
)

// formView is a form of a record's (or an action's) declared fields.
type formView struct {
	Title    string
	Action   string
	Cancel   string
	Submit   string
	CSRF     string
	Fields   []formField
	Problems []string // errors that name no field of the form
}

// formField is one input, its value as typed and the errors next to it.
type formField struct {
	Name, Label, Kind, Value, Hint string
	Enum                           []string
	Required                       bool
	Errors                         []string
}

// inputFields are the fields a form sets: declared, writable, and allowed.
func inputFields(k *caller, fields []resource.Field) []*resource.Field {
	var out []*resource.Field
	for i := range fields {
		f := &fields[i]
		if f.ReadOnly || f.Virtual || standard[f.Name] || (f.Right != "" && !k.allows(f.Right)) {
			continue
		}
		out = append(out, f)
	}
	return out
}

func kindOf(f *resource.Field) string {
	switch {
	case len(f.Enum) > 0:
		return "enum"
	case f.Type == resource.TBool:
		return "bool"
	case f.Type == resource.TNumber || f.Type == resource.TInteger:
		return "number"
	case f.Type == resource.TArray && f.Items != nil && plain(f.Items) && f.Items.Type != resource.TArray:
		return "lines"
	case !plain(f):
		return "json"
	case f.Format == resource.FMarkdown || f.MaxLen > 300 || f.MaxLen == 0 && f.Type == resource.TString && f.Format == "":
		return "text"
	}
	return "string"
}

// formFields are the inputs with values from rec (a stored record) or
// from a submitted form.
func formFields(fields []*resource.Field, rec map[string]any, posted url.Values) []formField {
	out := make([]formField, 0, len(fields))
	for _, f := range fields {
		ff := formField{Name: f.Name, Label: f.Name, Kind: kindOf(f), Enum: f.Enum, Required: f.Required, Hint: f.Description}
		switch {
		case posted != nil:
			ff.Value = posted.Get("v." + f.Name)
		case !f.WriteOnly:
			ff.Value = inputValue(ff.Kind, rec[f.Name])
		}
		if f.WriteOnly {
			ff.Hint = strings.TrimSpace("write-only: leave empty to keep it. " + ff.Hint)
		}
		out = append(out, ff)
	}
	return out
}

func inputValue(kind string, v any) string {
	if v == nil {
		return ""
	}
	switch kind {
	case "lines":
		items, _ := v.([]any)
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = cell(it)
		}
		return strings.Join(parts, "\n")
	case "json":
		return pretty(v)
	case "bool":
		if b, _ := v.(bool); b {
			return "true"
		}
		return "false"
	}
	return cell(v)
}

// decode turns the posted inputs into a JSON body. An empty input is left
// out of a new record; on an edit it removes the value (null in a merge
// patch), except a write-only one, which stays as it is. Inputs that do
// not parse get their error next to them, without a call.
func decode(fields []*resource.Field, posted url.Values, editing bool, old map[string]any) (map[string]any, map[string][]string) {
	body, errs := map[string]any{}, map[string][]string{}
	for _, f := range fields {
		raw := strings.TrimSpace(posted.Get("v." + f.Name))
		if raw == "" {
			if editing && !f.WriteOnly && old[f.Name] != nil {
				body[f.Name] = nil
			}
			continue
		}
		v, msg := parseInput(kindOf(f), f, raw)
		if msg != "" {
			errs[f.Name] = append(errs[f.Name], msg)
			continue
		}
		body[f.Name] = v
	}
	return body, errs
}

func parseInput(kind string, f *resource.Field, raw string) (any, string) {
	switch kind {
	case "bool":
		return raw == "true", ""
	case "number":
		n, ok := finiteNumber(raw)
		if !ok {
			return nil, "is not a number"
		}
		return n, ""
	case "lines":
		var items []any
		for _, line := range strings.Split(raw, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				v, msg := parseInput(kindOf(f.Items), f.Items, line)
				if msg != "" {
					return nil, msg
				}
				items = append(items, v)
			}
		}
		return items, ""
	case "json":
		v, err := jsonlimit.Decode([]byte(raw))
		if err != nil {
			return nil, "is not valid JSON: " + err.Error()
		}
		return v, ""
	}
	return raw, ""
}

// finiteNumber reads a number input; NaN, ±Inf and what overflows a
// float64 are not numbers (no JSON body can carry them).
func finiteNumber(raw string) (float64, bool) {
	n, err := strconv.ParseFloat(raw, 64)
	return n, err == nil && !math.IsNaN(n) && !math.IsInf(n, 0)
}

// attach puts the API's validation errors next to their inputs; the
// others are listed above the form.
func attach(v *formView, a *answer) {
	for _, e := range a.Meta.Errors {
		name := e.Field
		if i := strings.IndexAny(name, ".["); i > 0 {
			name = name[:i]
		}
		placed := false
		for i := range v.Fields {
			if name != "" && v.Fields[i].Name == name {
				v.Fields[i].Errors = append(v.Fields[i].Errors, e.Message)
				placed = true
			}
		}
		if !placed {
			v.Problems = append(v.Problems, e.Message)
		}
	}
	if len(a.Meta.Errors) == 0 {
		v.Problems = append(v.Problems, a.message())
	}
}

func attachLocal(v *formView, errs map[string][]string) {
	for i := range v.Fields {
		v.Fields[i].Errors = append(v.Fields[i].Errors, errs[v.Fields[i].Name]...)
	}
}

func (c *Console) newForm(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	if res.ReadOnly || !k.allows(res.Right("create")) {
		c.forbidden(w, r, k, res.Right("create"))
		return
	}
	v := &formView{Title: "New " + title(res), Action: c.listPath(res), Cancel: c.listPath(res), Submit: "Create", CSRF: k.b.CSRF,
		Fields: formFields(inputFields(k, res.Fields), nil, nil)}
	c.render(w, r, http.StatusOK, "form", c.page(k, v.Title, &page{Form: v}))
}

func title(res *resource.Resource) string {
	if res.Title != "" {
		return res.Title
	}
	return res.Plural
}

// create posts the new record; a 422 shows the form again with each error
// next to its field.
func (c *Console) create(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	if res.ReadOnly || !k.allows(res.Right("create")) {
		c.forbidden(w, r, k, res.Right("create"))
		return
	}
	fields := inputFields(k, res.Fields)
	v := &formView{Title: "New " + title(res), Action: c.listPath(res), Cancel: c.listPath(res), Submit: "Create", CSRF: k.b.CSRF,
		Fields: formFields(fields, nil, r.PostForm)}
	c.submit(w, r, k, res, v, http.MethodPost, apiPath(res), fields, false, nil)
}

func (c *Console) editForm(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	if res.ReadOnly || !k.allows(res.Right("edit")) {
		c.forbidden(w, r, k, res.Right("edit"))
		return
	}
	id := r.PathValue("id")
	a := c.call(w, r, k, http.MethodGet, apiPath(res)+"/"+url.PathEscape(id))
	if a == nil {
		return
	}
	v := c.editView(k, res, id)
	v.Fields = formFields(inputFields(k, res.Fields), a.record(), nil)
	c.render(w, r, http.StatusOK, "form", c.page(k, v.Title, &page{Form: v}))
}

func (c *Console) editView(k *caller, res *resource.Resource, id string) *formView {
	return &formView{Title: "Edit " + title(res) + " " + id, Action: c.recordPath(res, id), Cancel: c.recordPath(res, id), Submit: "Save", CSRF: k.b.CSRF}
}

// update sends a merge patch of the form's fields.
func (c *Console) update(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	if res.ReadOnly || !k.allows(res.Right("edit")) {
		c.forbidden(w, r, k, res.Right("edit"))
		return
	}
	id := r.PathValue("id")
	path := apiPath(res) + "/" + url.PathEscape(id)
	cur := c.call(w, r, k, http.MethodGet, path)
	if cur == nil {
		return
	}
	fields := inputFields(k, res.Fields)
	v := c.editView(k, res, id)
	v.Fields = formFields(fields, nil, r.PostForm)
	c.submit(w, r, k, res, v, http.MethodPatch, path, fields, true, cur.record())
}

// submit decodes the form, calls the API and shows the record, or the form
// again with the errors.
func (c *Console) submit(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource, v *formView,
	method, path string, fields []*resource.Field, editing bool, old map[string]any) {
	a := c.post(w, r, k, v, method, path, fields, editing, old)
	if a == nil {
		return
	}
	rec := a.record()
	if once := onceFields(res, rec); len(once) > 0 {
		c.showOnce(w, r, k, res, rec, once)
		return
	}
	http.Redirect(w, r, c.recordPath(res, str(rec["_id"])), http.StatusSeeOther)
}

// post decodes the form and calls the API with it. It answers the API's
// success; otherwise it has shown the form again with the errors beside
// their fields (or the failure page) and answers nil.
func (c *Console) post(w http.ResponseWriter, r *http.Request, k *caller, v *formView,
	method, path string, fields []*resource.Field, editing bool, old map[string]any) *answer {
	body, errs := decode(fields, r.PostForm, editing, old)
	if len(errs) > 0 {
		attachLocal(v, errs)
		c.render(w, r, http.StatusUnprocessableEntity, "form", c.page(k, v.Title, &page{Form: v}))
		return nil
	}
	a, err := k.do(r.Context(), method, path, nil, body)
	if err != nil {
		c.fail(w, r, err)
		return nil
	}
	if !a.ok() {
		attach(v, a)
		c.render(w, r, a.Status, "form", c.page(k, v.Title, &page{Form: v}))
		return nil
	}
	return a
}
