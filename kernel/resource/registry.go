package resource

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"platform/kernel/auth"
)

// Registry holds every declared resource. A declaration that clashes with
// another (the same plural twice: they would share one collection) or
// contradicts itself is a programming error: Add panics at start-up, as
// Caddy's module registration does, rather than letting one silently win.
type Registry struct {
	byKey    map[string]*Resource // "module/plural"
	byPlural map[string]*Resource
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byKey: map[string]*Resource{}, byPlural: map[string]*Resource{}}
}

// Add registers a resource of module, completing it with the standard
// fields and derived indexes.
func (g *Registry) Add(module string, r *Resource) {
	if r.Module != "" && r.Module != module {
		panic(fmt.Sprintf("resource: %s is declared in module %s but mounted in %s", r.Plural, r.Module, module))
	}
	r.Module = module
	if prev := g.byPlural[r.Plural]; prev != nil {
		panic(fmt.Sprintf("resource: %s/%s and %s/%s share the plural (and collection) %q", prev.Module, prev.Plural, module, r.Plural, r.Plural))
	}
	r.complete()
	if err := r.check(); err != nil {
		panic(fmt.Sprintf("resource: %s/%s: %v", module, r.Plural, err))
	}
	auth.DeclareAdminOnly(r.AdminOnlyRights()...)
	g.byKey[module+"/"+r.Plural] = r
	g.byPlural[r.Plural] = r
}

// Get finds a resource by module and plural.
func (g *Registry) Get(module, plural string) *Resource { return g.byKey[module+"/"+plural] }

// ByPlural finds a resource by its collection name.
func (g *Registry) ByPlural(plural string) *Resource { return g.byPlural[plural] }

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

// RelationRight is the right needed to follow rel: the target's view
// right, or by the naming rule when the target's module is not mounted.
func (g *Registry) RelationRight(rel *Relation) string {
	if t := g.Get(rel.TargetModule(), rel.TargetPlural()); t != nil {
		return t.Right("view")
	}
	return rel.TargetModule() + "." + rel.TargetPlural() + ".view"
}

// check refuses declarations that contradict themselves.
func (r *Resource) check() error {
	fields := map[string]bool{}
	for _, f := range r.Fields {
		if fields[f.Name] {
			return fmt.Errorf("field %q is declared twice", f.Name)
		}
		fields[f.Name] = true
	}
	seen := map[string]bool{}
	for _, a := range r.Actions {
		if seen[a.Name] {
			return fmt.Errorf("action %q is declared twice", a.Name)
		}
		seen[a.Name] = true
	}
	for _, name := range r.AdminOnly {
		if !seen[name] && !slices.Contains([]string{"view", "create", "edit", "delete", "export"}, name) {
			return fmt.Errorf("admin-only %q is neither a verb nor an action", name)
		}
	}
	rels := map[string]bool{}
	for _, rel := range r.Relations {
		if rels[rel.Rel] || !strings.Contains(rel.Target, "/") {
			return fmt.Errorf("relation %q is declared twice or has no module/plural target", rel.Rel)
		}
		rels[rel.Rel] = true
	}
	if r.Global && !r.ReadOnly {
		return fmt.Errorf("a global resource must be read-only: clients of one customer cannot write records every customer sees")
	}
	if r.Key != "" {
		f := r.Field(r.Key)
		if f == nil || f.Type != TString || !(f.Unique || f.UniqueWithin != "") || !f.Required {
			return fmt.Errorf("key %q must be a required, unique string field", r.Key)
		}
		if f.UniqueWithin != "" && r.Field(f.UniqueWithin) == nil {
			return fmt.Errorf("key %q is unique within %q, which is not a field", r.Key, f.UniqueWithin)
		}
	}
	return nil
}

// AdminOnlyRights are the rights of r.AdminOnly: an action's own right
// when the name is an action, else the verb's right.
func (r *Resource) AdminOnlyRights() []string {
	out := make([]string, 0, len(r.AdminOnly))
	for _, name := range r.AdminOnly {
		if a := r.Action(name); a != nil {
			out = append(out, r.ActionRight(a))
		} else {
			out = append(out, r.Right(name))
		}
	}
	return out
}
