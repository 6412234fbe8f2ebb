package states

import (
	"platform/kernel/resource"
	"platform/kernel/store"
)

// base is a resource's path at the gateway.
func base(r *resource.Resource) string { return "/" + r.Module + "/" + r.Plural }

// table is the state of a resource's list: its columns (every readable
// field, with whether it may be filtered and sorted on), the filterable
// ones, the operations and actions with their rights, and its links.
func table(r *resource.Resource, app string) State {
	s := State{Module: r.Module, AppName: app, Name: r.Module + "." + r.Plural, Type: TypeTable}
	for i := range r.Fields {
		f := &r.Fields[i]
		if f.WriteOnly {
			continue
		}
		col := store.Doc{"name": f.Name, "type": typeName(f), "filter": f.Filter, "sort": f.Sort, "readOnly": f.ReadOnly}
		if len(f.Enum) > 0 {
			col["enum"] = strs(f.Enum)
		}
		s.Cols = append(s.Cols, col)
		if f.Filter {
			s.Filters = append(s.Filters, f.Name)
		}
	}
	s.Actions = operations(r)
	s.Links = []store.Doc{
		{"rel": "self", "href": base(r), "title": r.Title},
		{"rel": "openapi", "href": base(r) + "/openapi.json"},
	}
	for _, rel := range r.Relations {
		s.Links = append(s.Links, store.Doc{"rel": rel.Rel, "href": "/" + rel.Target, "title": rel.Title})
	}
	return s
}

func typeName(f *resource.Field) string {
	if f.Type == resource.TAny {
		return "any"
	}
	return string(f.Type)
}

// operations are the generic verbs the resource serves and its actions.
func operations(r *resource.Resource) []store.Doc {
	op := func(name, method, path, right string) store.Doc {
		return store.Doc{"name": name, "method": method, "path": path, "right": right}
	}
	b := base(r)
	out := []store.Doc{op("list", "GET", b, r.Right("view")), op("get", "GET", b+"/{id}", r.Right("view"))}
	if !r.ReadOnly {
		out = append(out, op("create", "POST", b, r.Right("create")), op("update", "PATCH", b+"/{id}", r.Right("edit")),
			op("delete", "DELETE", b+"/{id}", r.Right("delete")))
	}
	for i := range r.Actions {
		a := &r.Actions[i]
		d := op(a.Name, "POST", b+"/{id}/actions/"+a.Name, r.ActionRight(a))
		d["title"] = a.Title
		out = append(out, d)
	}
	return out
}

// rightState is the state of one right: where it is needed.
func rightState(module, app, right string, r *resource.Resource) State {
	return State{Module: module, AppName: app, Name: right, Type: TypeRight,
		Links: []store.Doc{{"rel": "resource", "href": base(r), "title": r.Title}}}
}

// overview is a module's state: a link to each of its tables.
func overview(module, app string, rs []*resource.Resource) State {
	s := State{Module: module, AppName: app, Name: module, Type: TypeOverview}
	for _, r := range rs {
		s.Links = append(s.Links, store.Doc{"rel": "table", "href": base(r), "title": r.Title, "state": r.Module + "." + r.Plural})
	}
	return s
}
