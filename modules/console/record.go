package console

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"platform/kernel/resource"
)

// recordView is one record as the console shows it.
type recordView struct {
	Resource *resource.Resource
	ID       string
	Fields   []shownField
	Once     []shownField // values the API shows only this once (a new secret)
	EditHref string
	Delete   string // form action, when the user may delete
	Actions  []actionButton
	Links    []navItem // related pages: the attempts of a delivery, the run in Temporal
	CSRF     string
	Answer   string // the action whose answer this is, when it is not the record
}

type shownField struct {
	Name  string
	Text  string    // a plain value
	Block string    // a nested value as indented JSON
	Table *subTable // an array of objects
}

type subTable struct {
	Columns []string
	Rows    [][]string
}

type actionButton struct {
	Name, Title, Href string
	Form              bool // no body: a button posting straight away
}

func (c *Console) view(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	a := c.call(w, r, k, http.MethodGet, apiPath(res)+"/"+url.PathEscape(r.PathValue("id")))
	if a == nil {
		return
	}
	rec := a.record()
	v := c.recordView(k, res, rec)
	p := &page{Record: v, Refresh: workUnderWay(rec)}
	c.render(w, r, http.StatusOK, "record", c.page(k, res.Plural+" "+v.ID, p))
}

// workUnderWay: seconds until a record whose state moves by itself (a
// running pipeline run, a delivery being retried) is shown again.
func workUnderWay(rec map[string]any) int {
	switch str(rec["status"]) {
	case "running", "retrying", "pending", "queued", "sending", "starting", "stopping":
		return 2
	}
	return 0
}

func (c *Console) recordView(k *caller, res *resource.Resource, rec map[string]any) *recordView {
	v := &recordView{Resource: res, ID: str(rec["_id"]), CSRF: k.b.CSRF}
	v.Fields = shownFields(res, rec)
	path := c.recordPath(res, v.ID)
	if !res.ReadOnly && k.allows(res.Right("edit")) {
		v.EditHref = path + "/edit"
	}
	if !res.ReadOnly && k.allows(res.Right("delete")) {
		v.Delete = path + "/delete"
	}
	for i := range res.Actions {
		act := &res.Actions[i]
		if k.allows(res.ActionRight(act)) {
			v.Actions = append(v.Actions, actionButton{Name: act.Name, Title: act.Title, Href: path + "/actions/" + act.Name, Form: len(act.Body) == 0})
		}
	}
	v.Links = c.related(k, res, rec)
	return v
}

// shownFields are the record's declared fields in declaration order, then
// any others it carries.
func shownFields(res *resource.Resource, rec map[string]any) []shownField {
	var out []shownField
	seen := map[string]bool{}
	for _, f := range visibleFields(res) {
		seen[f.Name] = true
		if val, ok := rec[f.Name]; ok {
			out = append(out, show(f.Name, val))
		}
	}
	var rest []string
	for name := range rec {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		out = append(out, show(name, rec[name]))
	}
	return out
}

func show(name string, v any) shownField {
	switch t := v.(type) {
	case map[string]any:
		return shownField{Name: name, Block: pretty(t)}
	case []any:
		if tbl := objectTable(t); tbl != nil {
			return shownField{Name: name, Table: tbl}
		}
		if len(t) > 0 && !allPlain(t) {
			return shownField{Name: name, Block: pretty(t)}
		}
	}
	return shownField{Name: name, Text: cell(v)}
}

// objectTable shows an array of flat objects (attempts, steps) as a table.
func objectTable(items []any) *subTable {
	if len(items) == 0 {
		return nil
	}
	t := &subTable{}
	cols := map[string]bool{}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil
		}
		for k := range m {
			if !cols[k] {
				cols[k] = true
				t.Columns = append(t.Columns, k)
			}
		}
	}
	sort.SliceStable(t.Columns, func(i, j int) bool { return columnRank(t.Columns[i]) < columnRank(t.Columns[j]) })
	for _, it := range items {
		m := it.(map[string]any)
		row := make([]string, len(t.Columns))
		for i, col := range t.Columns {
			row[i] = cell(m[col])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// columnRank puts the identifying columns first.
func columnRank(name string) int {
	for i, n := range []string{"id", "round", "attempt", "type", "status", "statusCode", "at", "startedAt"} {
		if n == name {
			return i
		}
	}
	return 100
}

func allPlain(items []any) bool {
	for _, it := range items {
		switch it.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}

// cell is a value on one line.
func cell(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		if t {
			return "yes"
		}
		return "no"
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e15 {
			return fmt.Sprintf("%d", int64(t))
		}
		return fmt.Sprint(t)
	case []any:
		parts := make([]string, len(t))
		for i, it := range t {
			parts[i] = cell(it)
		}
		return strings.Join(parts, ", ")
	default:
		return encode(t, "")
	}
}

func pretty(v any) string { return encode(v, "  ") }

// encode is JSON as typed (no \u0026 for &: the template escapes HTML).
func encode(v any, indent string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// related links the pages an operator goes on to: the attempts of a
// delivery, a webhook's deliveries, a run's workflow in the Temporal UI.
func (c *Console) related(k *caller, res *resource.Resource, rec map[string]any) []navItem {
	var out []navItem
	deliveries := c.d.Registry.Get("automation", "webhookdeliveries")
	canSee := deliveries != nil && k.allows(deliveries.Right("view"))
	switch res.Module + "/" + res.Plural {
	case "automation/webhookretries":
		if canSee && str(rec["delivery"]) != "" {
			out = append(out, navItem{Title: "Every attempt of this delivery", Href: c.listPath(deliveries) + "?" +
				url.Values{"f.delivery": {str(rec["delivery"])}, "sort": {"createdAt"}}.Encode()})
		}
	case "automation/webhooks":
		if canSee {
			out = append(out, navItem{Title: "Deliveries of this webhook", Href: c.listPath(deliveries) + "?" +
				url.Values{"f.webhook": {str(rec["_id"])}, "sort": {"-createdAt"}}.Encode()})
		}
	case "automation/pipelineruns":
		if ui := c.d.Config.TemporalUI(); ui != "" {
			out = append(out, navItem{Title: "Open the run's workflow in the Temporal UI", Href: ui + "/namespaces/" +
				url.PathEscape(c.d.Config.TemporalNamespace) + "/workflows/" + url.PathEscape(str(rec["_id"]))})
		}
	}
	return out
}

// remove deletes the record and goes back to the list.
func (c *Console) remove(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	if res.ReadOnly || !k.allows(res.Right("delete")) {
		c.forbidden(w, r, k, res.Right("delete"))
		return
	}
	a := c.call(w, r, k, http.MethodDelete, apiPath(res)+"/"+url.PathEscape(r.PathValue("id")))
	if a == nil {
		return
	}
	http.Redirect(w, r, c.listPath(res), http.StatusSeeOther)
}

// call makes a bodiless API call as the user. It answers the API's
// success; otherwise it has shown the failure and answers nil.
func (c *Console) call(w http.ResponseWriter, r *http.Request, k *caller, method, path string) *answer {
	a, err := k.do(r.Context(), method, path, nil, nil)
	if err != nil {
		c.fail(w, r, err)
		return nil
	}
	if !a.ok() {
		c.apiFailed(w, r, k, a)
		return nil
	}
	return a
}
