// Package states is the platform's state registry: the states a UI can
// show (a module's overview, a table per resource, a right per right),
// derived from the resource declarations and registered by every process
// at start-up, and the per-module summary rebuilt from them
// (docs/config-computing.md, State registry).
package states

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"

	"platform/kernel/resource"
	"platform/kernel/store"
)

// Collections of the registry. Both are global: states are derived from
// the code, the same for every customer.
const (
	Collection      = "platformstates"
	CacheCollection = "modulestate-cache"
)

// State types.
const (
	TypeOverview = "module-overview"
	TypeTable    = "table"
	TypeRight    = "right"
)

// Types lists the state types.
var Types = []string{TypeOverview, TypeTable, TypeRight}

// Field names of a state.
const (
	FieldModule  = "_module"
	FieldAppName = "_appName"
	FieldName    = "name"
	FieldType    = "stateType"
	FieldHash    = "hash"
)

// State is one registry entry.
type State struct {
	Module, AppName, Name, Type string
	Cols                        []store.Doc
	Filters                     []string
	Actions                     []store.Doc
	Links                       []store.Doc
}

// ID is the state's record id, derived from its key (module, app name,
// name, type): registering it again finds the same record.
func (s State) ID() string { return keyID(s.Module, s.AppName, s.Name, s.Type) }

func keyID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s|", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// Doc is the state as stored, less the bookkeeping fields; hash sums the
// content so an unchanged state is not written again.
func (s State) Doc() store.Doc {
	d := store.Doc{"_id": s.ID(), FieldModule: s.Module, FieldAppName: s.AppName, FieldName: s.Name, FieldType: s.Type,
		"cols": docs(s.Cols), "filters": strs(s.Filters), "actions": docs(s.Actions), "links": docs(s.Links)}
	d[FieldHash] = contentHash(d)
	return d
}

// Derive lists the states of every declared resource of reg, for app:
// one table per resource, one right per right, one overview per module.
func Derive(reg *resource.Registry, app string) []State {
	byModule := map[string][]*resource.Resource{}
	for _, r := range reg.All() {
		byModule[r.Module] = append(byModule[r.Module], r)
	}
	var out []State
	for _, m := range sortedKeys(byModule) {
		out = append(out, overview(m, app, byModule[m]))
		rights := map[string]*resource.Resource{}
		for _, r := range byModule[m] {
			out = append(out, table(r, app))
			for _, right := range rightsOf(r) {
				if rights[right] == nil {
					rights[right] = r
				}
			}
		}
		for _, right := range sortedKeys(rights) {
			out = append(out, rightState(m, app, right, rights[right]))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func strs(v []string) []any {
	out := make([]any, len(v))
	for i, s := range v {
		out[i] = s
	}
	return out
}

func docs(v []store.Doc) []any {
	out := make([]any, len(v))
	for i, d := range v {
		out[i] = d
	}
	return out
}

// rightsOf lists the rights a resource's routes and actions need, and
// those it grants beyond them.
func rightsOf(r *resource.Resource) []string {
	verbs := []string{"view"}
	if !r.ReadOnly {
		verbs = append(verbs, "create", "edit", "delete")
	}
	if r.Export {
		verbs = append(verbs, "export")
	}
	var out []string
	for _, v := range verbs {
		out = append(out, r.Right(v))
	}
	for i := range r.Actions {
		out = append(out, r.ActionRight(&r.Actions[i]))
	}
	for _, g := range r.Grants {
		out = append(out, g.Right)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
