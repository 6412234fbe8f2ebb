package api

import (
	"context"
	"fmt"
	"sort"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Resource declares one REST resource. The generic handlers, validation,
// rights, events, indexes and the OpenAPI description all come from it:
// adding a resource is adding a declaration.
type Resource struct {
	Module string // module name, e.g. "crm"
	Plural string // collection and path segment, e.g. "consumers"
	Entity string // right segment; defaults to Plural
	Title  string // human name of one record, e.g. "consumer"
	Fields []Field

	// Rights per verb; empty ones default to <module>.<entity>.<verb>.
	Rights Rights
	// ReadOnly resources serve list and get only (records are written by the platform).
	ReadOnly bool

	Indexes   []store.Index // beyond those derived from Unique/Sort/Filter fields
	Actions   []Action
	Relations []Relation
	Subs      []Sub
	Hooks     Hooks
	// DefaultSort orders lists without ?sort (natural order when empty).
	DefaultSort []store.SortField
	// SortFirst always leads the order (pinned notes first).
	SortFirst []store.SortField

	byName map[string]*Field // filled by complete(); present() looks up every key of every record

}

// Rights names the right each verb needs.
type Rights struct {
	View, Create, Edit, Delete string
}

// Action is a custom operation: POST /{plural}/:id/actions/<name>.
type Action struct {
	Name  string
	Title string
	Right string // defaults to <module>.<entity>.edit
	// Event is the verb of the event emitted on success (<plural>.<Event>).
	Event string
	// Body declares the accepted body; nil means no body (an empty object is accepted).
	Body []Field
	// AllowMissing runs the action even when the record is gone (Record is
	// nil), so an action that removes its record can be retried.
	AllowMissing bool
	Run          func(ctx context.Context, call *ActionCall) (*ActionResult, error)
}

// ActionCall is what an action receives.
type ActionCall struct {
	Resource *Resource
	ID       string
	Record   store.Doc // the record as the caller may see it
	Body     store.Doc
	Services *Services
}

// ActionResult is an action's answer. EventData is the event's data; when
// nil and Payload is a record, the record is used.
type ActionResult struct {
	Payload   any
	EventData store.Doc
	NoEvent   bool // the action changed nothing (an idempotent retry)
}

// Relation is a related resource listed in meta.relations.
type Relation struct {
	Rel    string
	Title  string
	Module string
	Plural string
	Right  string
	// Sub, when set, links to the sub-resource path of this record.
	Sub string
}

// Sub is a sub-resource list: GET /{plural}/:id/<Name> lists Target records
// whose Key field equals the id.
type Sub struct {
	Name   string
	Module string
	Plural string
	Key    string
	Where  query.Expr // extra condition (notes: targetType)
	// Unavailable, when it returns an error, answers instead (e.g. a module that is not active).
	Unavailable func(ctx context.Context) error
}

// Hooks let a resource add rules the declaration cannot express.
type Hooks struct {
	// BeforeWrite runs on create (w.Old == nil) and update, after field
	// validation and before storing; it may change w.New or reject.
	BeforeWrite func(ctx context.Context, w *Write) error
	// ReadFilter restricts what the caller may see (nil: everything).
	ReadFilter func(ctx context.Context) query.Expr
	// Present adds virtual fields to a record on its way out.
	Present func(doc store.Doc)
	// AfterDelete runs after a record is deleted.
	AfterDelete func(ctx context.Context, s *Services, old store.Doc) error
}

// Write is a record on its way into the store.
type Write struct {
	Old      store.Doc // nil on create
	New      store.Doc
	Services *Services
	// Once holds values shown in the create answer only: never stored, never
	// in the event (a client secret shown once).
	Once store.Doc
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

// sortable reports whether path may be used in ?sort.
func (r *Resource) sortable(path string) bool {
	f := r.Field(path)
	return f != nil && f.Sort
}

// Registry holds every declared resource.
type Registry struct {
	byKey map[string]*Resource
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byKey: map[string]*Resource{}} }

// Add registers a resource (completing it with the standard fields).
func (g *Registry) Add(r *Resource) {
	r.complete()
	g.byKey[r.Module+"/"+r.Plural] = r
}

// Get finds a resource by module and plural.
func (g *Registry) Get(module, plural string) *Resource { return g.byKey[module+"/"+plural] }

// ByPlural finds a resource by its collection name in any module.
func (g *Registry) ByPlural(plural string) *Resource {
	for _, r := range g.byKey {
		if r.Plural == plural {
			return r
		}
	}
	return nil
}

// All lists resources in a stable order.
func (g *Registry) All() []*Resource {
	out := make([]*Resource, 0, len(g.byKey))
	for _, r := range g.byKey {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Module+"/"+out[i].Plural < out[j].Module+"/"+out[j].Plural
	})
	return out
}

// EventNames lists every event of every resource, sorted.
func (g *Registry) EventNames() []string {
	var out []string
	for _, r := range g.All() {
		out = append(out, r.EventNames()...)
	}
	sort.Strings(out)
	return out
}
