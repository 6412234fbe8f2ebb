package states

import (
	"context"
	"slices"
	"strings"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Rebuild makes the module state cache of app match the registry as
// stored: one summary per module (its overview, tables with their
// filters and actions, rights, counts, and a hash over its states'),
// rebuilt from the platformstates records rather than from memory, so it
// is what any process reads. Unchanged summaries are not written.
func Rebuild(ctx context.Context, st store.Store, app string) (Result, error) {
	stored, err := st.Global(Collection).Find(ctx, store.FindOptions{Filter: query.Eq(FieldAppName, app)})
	if err != nil {
		return Result{}, err
	}
	return upsertAll(ctx, st.Global(CacheCollection), app, Summaries(app, stored))
}

// Summaries are the per-module summaries of stored states, ordered by
// module, each with its content hash.
func Summaries(app string, stored []store.Doc) []store.Doc {
	byModule := map[string][]store.Doc{}
	for _, d := range stored {
		m, _ := d[FieldModule].(string)
		byModule[m] = append(byModule[m], d)
	}
	out := make([]store.Doc, 0, len(byModule))
	for _, m := range sortedKeys(byModule) {
		out = append(out, summary(m, app, byModule[m]))
	}
	return out
}

func summary(module, app string, ds []store.Doc) store.Doc {
	sortByName(ds)
	var tables, rights, hashes []any
	overview := ""
	for _, d := range ds {
		name, _ := d[FieldName].(string)
		hashes = append(hashes, d[FieldHash])
		switch d[FieldType] {
		case TypeOverview:
			overview = name
		case TypeTable:
			tables = append(tables, tableSummary(d))
		case TypeRight:
			rights = append(rights, name)
		}
	}
	s := store.Doc{"_id": keyID(module, app), FieldModule: module, FieldAppName: app, "overview": overview,
		"tables": orEmpty(tables), "rights": orEmpty(rights), "stateCount": int64(len(ds)),
		"tableCount": int64(len(tables)), "rightCount": int64(len(rights))}
	s[FieldHash] = contentHash(store.Doc{"states": hashes, "summary": s})
	return s
}

func orEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// tableSummary is a table state in brief: its name, address, filters and
// the names of its operations.
func tableSummary(d store.Doc) store.Doc {
	out := store.Doc{"name": d[FieldName], "filters": d["filters"]}
	if links, _ := d["links"].([]any); len(links) > 0 {
		if self, _ := links[0].(map[string]any); self != nil {
			out["href"], out["title"] = self["href"], self["title"]
		}
	}
	var ops []any
	actions, _ := d["actions"].([]any)
	for _, a := range actions {
		if m, _ := a.(map[string]any); m != nil {
			ops = append(ops, m["name"])
		}
	}
	out["actions"] = orEmpty(ops)
	return out
}

func sortByName(ds []store.Doc) {
	key := func(d store.Doc) string {
		t, _ := d[FieldType].(string)
		n, _ := d[FieldName].(string)
		return t + "\x00" + n
	}
	slices.SortFunc(ds, func(a, b store.Doc) int { return strings.Compare(key(a), key(b)) })
}
