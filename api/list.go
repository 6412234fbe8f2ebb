package api

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// List query parameters (DESIGN §3).
const (
	defaultLimit = 25
	maxLimit     = 500
)

var reservedParams = map[string]bool{"limit": true, "page": true, "sort": true, "fields": true, "filter": true, "count": true, "format": true}

// parseList reads a list request's query parameters.
func parseList(r *resource.Resource, q url.Values) (*resource.ListQuery, error) {
	lq := &resource.ListQuery{Limit: defaultLimit, Page: 1}
	var err error
	if lq.Limit, err = intParam(q, "limit", defaultLimit, 1, maxLimit); err != nil {
		return nil, err
	}
	if lq.Page, err = intParam(q, "page", 1, 1, 1_000_000); err != nil {
		return nil, err
	}
	if s := q.Get("sort"); s != "" {
		if lq.Sort, err = parseSort(r, s); err != nil {
			return nil, err
		}
	}
	if f := q.Get("fields"); f != "" {
		if lq.Fields, err = parseFields(r, f); err != nil {
			return nil, err
		}
	}
	if lq.Count, err = CountParam(q); err != nil {
		return nil, err
	}
	lq.Filter, err = parseFilter(r, q)
	return lq, err
}

func intParam(q url.Values, name string, def, min, max int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		return 0, BadRequest(resource.CodeBadQuery, name, "%s must be a whole number from %d to %d", name, min, max)
	}
	return n, nil
}

func parseSort(r *resource.Resource, s string) ([]store.SortField, error) {
	var out []store.SortField
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		desc := strings.HasPrefix(part, "-")
		name := strings.TrimPrefix(strings.TrimPrefix(part, "-"), "+")
		if !r.Sortable(name) {
			return nil, BadRequest(resource.CodeBadQuery, "sort", "cannot sort by %q; sortable fields: %s", name, strings.Join(sortableNames(r), ", "))
		}
		if slices.ContainsFunc(out, func(f store.SortField) bool { return f.Field == name }) {
			return nil, BadRequest(resource.CodeBadQuery, "sort", "sort names %q twice", name)
		}
		out = append(out, store.SortField{Field: name, Desc: desc})
	}
	return out, nil
}

func sortableNames(r *resource.Resource) []string {
	var out []string
	for _, f := range r.Fields {
		if f.Sort {
			out = append(out, f.Name)
		}
	}
	return out
}

func parseFields(r *resource.Resource, s string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		f := r.Field(name)
		if f == nil || f.WriteOnly {
			return nil, BadRequest(resource.CodeBadQuery, "fields", "unknown field %q in fields", name)
		}
		out = append(out, name)
	}
	return out, nil
}

func parseFilter(r *resource.Resource, q url.Values) (query.Expr, error) {
	var parts []query.Expr
	if text := q.Get("filter"); text != "" {
		e, err := query.ParseJSON(text, r)
		if err != nil {
			return nil, resource.QueryError(err)
		}
		parts = append(parts, e)
	}
	for name, vals := range q {
		if reservedParams[name] {
			continue
		}
		for _, v := range vals {
			e, err := query.Shorthand(name, v, r)
			if err != nil {
				return nil, resource.QueryError(err)
			}
			parts = append(parts, e)
		}
	}
	return query.AllOf(parts...), nil
}

// pageLinks builds self, next and prev in the module form.
func pageLinks(base string, q url.Values, page int, hasNext bool) []Link {
	at := func(p int) string {
		v := url.Values{}
		for k, vals := range q {
			v[k] = vals
		}
		v.Set("page", strconv.Itoa(p))
		return base + "?" + v.Encode()
	}
	links := []Link{{Rel: "self", Href: at(page), Method: "GET", Title: "this page", Types: Types}}
	if hasNext {
		links = append(links, Link{Rel: "next", Href: at(page + 1), Method: "GET", Title: "next page", Types: Types})
	}
	if page > 1 {
		links = append(links, Link{Rel: "prev", Href: at(page - 1), Method: "GET", Title: "previous page", Types: Types})
	}
	return links
}
