// Package resource is the record service: one declaration per resource
// drives validation, rights, events, indexes and (through package api) the
// OpenAPI description, and every write of a record goes through Service,
// whoever makes it: the HTTP handlers, workflows and their activities, the
// platform's own bookkeeping. It knows nothing of HTTP: its errors are
// kinds (not found, conflict, invalid, ...), which package api renders.
package resource

import (
	"fmt"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Resource declares one REST resource. The generic handlers, validation,
// rights, events, indexes and the OpenAPI description all come from it:
// adding a resource is adding a declaration.
type Resource struct {
	Module string // module name, e.g. "crm"; filled in when the module is mounted
	Plural string // collection and path segment, e.g. "consumers"
	Entity string // right segment; defaults to Plural
	Title  string // human name of one record, e.g. "consumer"
	Fields []Field

	// Rights per verb; empty ones default to <module>.<entity>.<verb>.
	Rights Rights
	// ReadOnly resources serve list and get only (records are written by the platform).
	ReadOnly bool
	// Global resources hold records of no customer, the same for every
	// caller (the state registry derived from the declarations): they are
	// kept in an unscoped collection and must be ReadOnly.
	Global bool
	// Export declares an export right (<module>.<entity>.export, or
	// Rights.Export): lists answered as CSV or YAML, and any bulk export,
	// need it besides the view right.
	Export bool
	// Grants are rights the resource declares beyond its verbs, export
	// and actions (config.credentials.use: a pipeline may read a
	// credential's values), so tokens and apps can be granted them.
	Grants []Grant
	// AdminOnly names verbs (delete, ...) and actions (decrypt, ...) whose
	// rights only the admin role gives: no wildcard scope covers them
	// (auth.DeclareAdminOnly; docs/config-credentials.md, "Admin role").
	AdminOnly []string

	// Key, when set, names a unique string field that addresses a record
	// wherever its id does (/flags/:slug): its values may not look like
	// an id (24 hexadecimal characters), so the two are never confused.
	// A key unique per parent (Field.UniqueWithin) is looked up within
	// the parent the caller names (InParent), or alone when only one
	// record has it.
	Key string

	Indexes []store.Index // beyond those derived from Unique/Sort/Filter fields
	Actions []Action
	// Events are verbs of events the platform emits for records of the
	// resource on its own, beyond writes and actions (webhooks.disabled):
	// declared so that GET /events lists them and webhooks and triggers
	// may subscribe to them.
	Events    []string
	Relations []Relation
	Hooks     Hooks
	// DefaultSort orders lists without ?sort (natural order when empty).
	DefaultSort []store.SortField
	// SortFirst always leads the order (pinned notes first).
	SortFirst []store.SortField

	byName map[string]*Field // filled by complete(); present() looks up every key of every record
}

// Grant is a declared right and what it allows, in plain words.
type Grant struct{ Right, Title string }

// Rights names the right each verb needs.
type Rights struct {
	View, Create, Edit, Delete, Export string
}

// Verb names of the generic events.
const (
	EventCreated = "created"
	EventUpdated = "updated"
	EventDeleted = "deleted"
)

// Right returns the right for a verb ("view", "create", "edit", "delete").
func (r *Resource) Right(verb string) string {
	var v string
	switch verb {
	case "view":
		v = r.Rights.View
	case "create":
		v = r.Rights.Create
	case "edit":
		v = r.Rights.Edit
	case "delete":
		v = r.Rights.Delete
	case "export":
		v = r.Rights.Export
	}
	if v != "" {
		return v
	}
	return fmt.Sprintf("%s.%s.%s", r.Module, r.entity(), verb)
}

func (r *Resource) entity() string {
	if r.Entity != "" {
		return r.Entity
	}
	return r.Plural
}

// Collection opens r's records in st: scoped to the customer of the
// context, or unscoped for a Global resource.
func (r *Resource) Collection(st store.Store) store.Collection {
	if r.Global {
		return st.Global(r.Plural)
	}
	return st.Collection(r.Plural)
}

// ActionRight is the right an action needs.
func (r *Resource) ActionRight(a *Action) string {
	if a.Right != "" {
		return a.Right
	}
	return r.Right("edit")
}

// Field finds a declared top-level field (standard fields included).
func (r *Resource) Field(name string) *Field {
	if r.byName != nil {
		return r.byName[name]
	}
	for i := range r.Fields {
		if r.Fields[i].Name == name {
			return &r.Fields[i]
		}
	}
	return nil
}

// Action finds an action by name.
func (r *Resource) Action(name string) *Action {
	for i := range r.Actions {
		if r.Actions[i].Name == name {
			return &r.Actions[i]
		}
	}
	return nil
}

// EventNames lists the events the resource emits.
func (r *Resource) EventNames() []string {
	var out []string
	if !r.ReadOnly {
		for _, v := range []string{EventCreated, EventUpdated, EventDeleted} {
			out = append(out, r.Plural+"."+v)
		}
	}
	for _, a := range r.Actions {
		if a.Event != "" {
			out = append(out, r.Plural+"."+a.Event)
		}
	}
	for _, v := range r.Events {
		out = append(out, r.Plural+"."+v)
	}
	return out
}

// StandardFields are set by the platform on every record.
func StandardFields() []Field {
	return []Field{
		{Name: "_id", Type: TObjectID, ReadOnly: true, Filter: true, Sort: true, Description: "record id"},
		{Name: "createdAt", Type: TDate, ReadOnly: true, Filter: true, Sort: true},
		{Name: "updatedAt", Type: TDate, ReadOnly: true, Filter: true, Sort: true},
		{Name: "createdBy", Type: TObjectID, ReadOnly: true, Filter: true, Description: "user (or app) that created the record"},
		{Name: "modifiedBy", Type: TObjectID, ReadOnly: true, Filter: true, Description: "user (or app) that last changed the record"},
	}
}

// complete adds the standard fields and derived indexes; called once at registration.
func (r *Resource) complete() {
	have := map[string]bool{}
	for _, f := range r.Fields {
		have[f.Name] = true
	}
	var std []Field
	for _, f := range StandardFields() {
		if !have[f.Name] {
			std = append(std, f)
		}
	}
	r.Fields = append(std, r.Fields...)
	r.Indexes = append(r.Indexes, r.derivedIndexes()...)
	r.byName = make(map[string]*Field, len(r.Fields))
	for i := range r.Fields {
		r.byName[r.Fields[i].Name] = &r.Fields[i]
	}
}

func (r *Resource) derivedIndexes() []store.Index {
	var out []store.Index
	for _, f := range r.Fields {
		if f.Virtual || f.Name == "_id" {
			continue
		}
		switch {
		case f.Unique:
			out = append(out, store.Index{Name: "uniq_" + f.Name, Keys: []store.SortField{{Field: f.Name}}, Unique: true, Sparse: !f.Required})
		case f.UniqueWithin != "":
			keys := []store.SortField{{Field: f.UniqueWithin}, {Field: f.Name}}
			out = append(out, store.Index{Name: "uniq_" + f.Name, Keys: keys, Unique: true, Sparse: !f.Required})
		case f.Sort || f.Filter:
			out = append(out, store.Index{Name: "by_" + f.Name, Keys: []store.SortField{{Field: f.Name}}})
		}
	}
	return out
}

// Lookup implements query.Schema: only declared filterable fields (and
// paths below free-form or declared objects) may be filtered on.
func (r *Resource) Lookup(path string) (query.FieldType, bool) {
	return lookupPath(r.Fields, path, true)
}

func lookupPath(fields []Field, path string, needFilter bool) (query.FieldType, bool) {
	head, rest, nested := cut(path)
	for i := range fields {
		f := &fields[i]
		if f.Name != head || f.WriteOnly || f.Virtual {
			continue
		}
		if needFilter && !f.Filter {
			return query.FieldType{}, false
		}
		if !nested {
			return f.queryType(), true
		}
		if f.FreeForm {
			return query.FieldType{Type: query.TypeAny}, true
		}
		sub := f.Fields
		if f.Type == TArray && f.Items != nil {
			sub = f.Items.Fields
		}
		return lookupPath(sub, rest, false)
	}
	return query.FieldType{}, false
}

func cut(path string) (string, string, bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

// Sortable reports whether path may be used to order a list.
func (r *Resource) Sortable(path string) bool {
	f := r.Field(path)
	return f != nil && f.Sort
}
