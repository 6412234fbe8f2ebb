package console

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"platform/kernel/jsonlimit"
	"platform/kernel/resource"
)

// listView is a page of records with the controls that made it.
type listView struct {
	Resource  *resource.Resource
	Columns   []string
	AllFields []columnChoice
	Rows      []listRow
	Filters   []filterInput
	SortOpts  []string
	Sort      string
	Desc      bool
	Filter    string // advanced: a JSON filter
	Limit     int
	Page      int
	Total     string // "42 records", "more than 10,000 records"
	PrevHref  string
	NextHref  string
	NewHref   string
	Action    string
	LimitOpts []int
}

type columnChoice struct {
	Name    string
	Checked bool
}

type listRow struct {
	Href  string
	Cells []string
}

// filterInput is one quick filter: equality (a select for an enum), or a
// from/to range for dates and numbers.
type filterInput struct {
	Name, Value, From, To string
	Enum                  []string
	Range                 bool
}

var limits = []int{10, 25, 50, 100}

func (c *Console) list(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	q := r.URL.Query()
	v := c.listControls(res, q)
	apiQ, err := listQuery(res, v, q)
	if err != "" {
		c.render(w, r, http.StatusBadRequest, "list", c.page(k, res.Plural, &page{List: v, Error: err}))
		return
	}
	a, e := k.do(r.Context(), http.MethodGet, apiPath(res), apiQ, nil)
	if e != nil {
		c.fail(w, r, e)
		return
	}
	if !a.ok() {
		c.render(w, r, a.Status, "list", c.page(k, res.Plural, &page{List: v, Error: a.message()}))
		return
	}
	c.fillRows(v, res, a, c.listPath(res), q)
	if !res.ReadOnly && k.allows(res.Right("create")) {
		v.NewHref = c.listPath(res) + "/new"
	}
	c.render(w, r, http.StatusOK, "list", c.page(k, res.Plural, &page{List: v}))
}

// listControls reads the page's controls from its query.
func (c *Console) listControls(res *resource.Resource, q url.Values) *listView {
	v := &listView{Resource: res, Action: c.listPath(res), LimitOpts: limits, Filter: q.Get("filter"),
		Sort: strings.TrimPrefix(q.Get("sort"), "-"), Desc: strings.HasPrefix(q.Get("sort"), "-") || q.Get("dir") == "desc"}
	v.Limit, _ = strconv.Atoi(q.Get("limit"))
	if !slices.Contains(limits, v.Limit) {
		v.Limit = 25
	}
	v.Page, _ = strconv.Atoi(q.Get("page"))
	v.Page = max(1, min(v.Page, 100000))
	v.Columns = chosenColumns(res, q["cols"])
	for _, f := range visibleFields(res) {
		v.AllFields = append(v.AllFields, columnChoice{Name: f.Name, Checked: slices.Contains(v.Columns, f.Name)})
		if f.Sort {
			v.SortOpts = append(v.SortOpts, f.Name)
		}
		if f.Filter && f.Name != "_id" && (plain(f) || f.Type == resource.TArray) {
			v.Filters = append(v.Filters, filterInput{Name: f.Name, Value: q.Get("f." + f.Name), From: q.Get("from." + f.Name),
				To: q.Get("to." + f.Name), Enum: f.Enum, Range: isRange(f)})
		}
	}
	if !slices.Contains(v.SortOpts, v.Sort) {
		v.Sort = ""
	}
	return v
}

func isRange(f *resource.Field) bool {
	return f.Type == resource.TDate || f.Type == resource.TNumber || f.Type == resource.TInteger
}

// visibleFields are the fields a record shows (never a write-only one).
func visibleFields(res *resource.Resource) []*resource.Field {
	var out []*resource.Field
	for i := range res.Fields {
		if f := &res.Fields[i]; !f.WriteOnly {
			out = append(out, f)
		}
	}
	return out
}

// chosenColumns: the columns asked for, else the first few plain fields.
func chosenColumns(res *resource.Resource, asked []string) []string {
	var out []string
	for _, name := range asked {
		if f := res.Field(name); f != nil && !f.WriteOnly && !slices.Contains(out, name) && len(out) < 20 {
			out = append(out, name)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, f := range visibleFields(res) {
		if len(out) == 5 {
			break
		}
		if plain(f) && !standard[f.Name] {
			out = append(out, f.Name)
		}
	}
	return append(out, "createdAt")
}

var standard = map[string]bool{"_id": true, "createdAt": true, "updatedAt": true, "createdBy": true, "modifiedBy": true}

func plain(f *resource.Field) bool {
	switch f.Type {
	case resource.TObject, resource.TAny:
		return false
	case resource.TArray:
		return f.Items != nil && f.Items.Type != resource.TObject
	}
	return true
}

// listQuery is the API query of the controls: equality by the shorthand,
// ranges and the advanced filter as one JSON filter, count=true for the
// total (capped for filtered lists: meta.totalRelation).
func listQuery(res *resource.Resource, v *listView, q url.Values) (url.Values, string) {
	out := url.Values{"page": {strconv.Itoa(v.Page)}, "limit": {strconv.Itoa(v.Limit)}, "count": {"true"}}
	if v.Sort != "" {
		s := v.Sort
		if v.Desc {
			s = "-" + s
		}
		out.Set("sort", s)
	}
	fields := append([]string{}, v.Columns...)
	out.Set("fields", strings.Join(fields, ","))
	var and []any
	if strings.TrimSpace(v.Filter) != "" {
		adv, err := jsonlimit.Decode([]byte(v.Filter))
		if _, isObject := adv.(map[string]any); err != nil || !isObject {
			return nil, "The filter is not a JSON object: " + describe(err)
		}
		and = append(and, adv)
	}
	for _, f := range v.Filters {
		if f.Value != "" {
			out.Set(f.Name, f.Value)
		}
		if r := rangeCond(res.Field(f.Name), f.From, f.To); r != nil {
			and = append(and, map[string]any{f.Name: r})
		}
	}
	switch len(and) {
	case 0:
	case 1:
		raw, _ := json.Marshal(and[0])
		out.Set("filter", string(raw))
	default:
		raw, _ := json.Marshal(map[string]any{"$and": and})
		out.Set("filter", string(raw))
	}
	return out, ""
}

// describe is why a filter was refused.
func describe(err error) string {
	if err == nil {
		return "it is another JSON value"
	}
	return err.Error()
}

func rangeCond(f *resource.Field, from, to string) map[string]any {
	m := map[string]any{}
	for op, s := range map[string]string{"$gte": from, "$lte": to} {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if f.Type == resource.TDate {
			m[op] = map[string]any{"$date": dayOrTime(s, op == "$lte")}
			continue
		}
		if n, ok := finiteNumber(s); ok {
			m[op] = n
		} else {
			m[op] = s // the API names the field and why
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// fillRows puts the answer's records, total and paging links in the view.
func (c *Console) fillRows(v *listView, res *resource.Resource, a *answer, path string, q url.Values) {
	for _, rec := range a.records() {
		row := listRow{Href: c.recordPath(res, str(rec["_id"]))}
		for _, col := range v.Columns {
			row.Cells = append(row.Cells, cell(rec[col]))
		}
		v.Rows = append(v.Rows, row)
	}
	more := len(v.Rows) == v.Limit
	if a.Meta.Total != nil {
		v.Total = totalText(*a.Meta.Total, a.Meta.TotalRelation)
		more = int64(v.Page*v.Limit) < *a.Meta.Total || a.Meta.TotalRelation == "gte" && more
	}
	if v.Page > 1 {
		v.PrevHref = pageHref(path, q, v.Page-1)
	}
	if more {
		v.NextHref = pageHref(path, q, v.Page+1)
	}
}

func totalText(n int64, relation string) string {
	s := thousands(n) + " records"
	if n == 1 {
		s = "1 record"
	}
	if relation == "gte" {
		return "more than " + s
	}
	return s
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func pageHref(path string, q url.Values, n int) string {
	q = maps.Clone(q)
	q.Set("page", strconv.Itoa(n))
	return path + "?" + q.Encode()
}

// dayOrTime reads a date input's day as the start (or end) of that day.
func dayOrTime(s string, end bool) string {
	if len(s) != len("2006-01-02") {
		return s
	}
	if end {
		return s + "T23:59:59.999Z"
	}
	return s + "T00:00:00Z"
}
