package mongostore

import (
	"context"
	"strings"

	"platform/kernel/query"
	"platform/kernel/store"
)

// FerretDB 1.24 gets parts of the query language wrong (measured by the
// property test in filter_property_test.go and the store contract):
// $elemMatch, paths through arrays, objects compared with array elements,
// $regex with the x option, negations over arrays. On FerretDB the store
// therefore sends only the parts it answers right (top-level comparisons
// with scalar values) and evaluates the whole filter with query.Match, the
// language's reference semantics. FerretDB scans the collection for such
// filters anyway, so this costs little. Real MongoDB gets the filter whole.

// needsLocalMatch reports whether e must be evaluated in Go on this server.
func (s *Store) needsLocalMatch(e query.Expr) bool {
	return s.ferret && e != nil && !ferretSafe(e)
}

// ferretSafe reports whether FerretDB evaluates e as MongoDB does.
func ferretSafe(e query.Expr) bool {
	switch x := e.(type) {
	case query.And:
		for _, p := range x.Exprs {
			if !ferretSafe(p) {
				return false
			}
		}
		return true
	case query.Field:
		return safeField(x)
	}
	return false
}

func safeField(f query.Field) bool {
	if strings.Contains(f.Path, ".") {
		return false
	}
	for _, c := range f.Conds {
		switch cc := c.(type) {
		case query.Compare:
			if cc.Op == query.OpNe || !scalar(cc.Value) {
				return false
			}
		case query.In:
			if cc.Not {
				return false
			}
			for _, v := range cc.Values {
				if !scalar(v) {
					return false
				}
			}
		case query.Exists:
		default:
			return false
		}
	}
	return true
}

func scalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// safePart keeps the conjuncts FerretDB answers right, to narrow the scan.
func safePart(e query.Expr) query.Expr {
	if a, ok := e.(query.And); ok {
		var keep []query.Expr
		for _, p := range a.Exprs {
			if ferretSafe(p) {
				keep = append(keep, p)
			}
		}
		return query.AllOf(keep...)
	}
	if ferretSafe(e) {
		return e
	}
	return nil
}

// findLocal answers Find by matching in Go: candidates come sorted from the
// server, then filter, skip, limit and projection apply here.
func (c *collection) findLocal(ctx context.Context, fo store.FindOptions) ([]store.Doc, error) {
	all, err := c.Find(ctx, store.FindOptions{Filter: safePart(fo.Filter), Sort: fo.Sort})
	if err != nil {
		return nil, err
	}
	out := []store.Doc{}
	skipped := int64(0)
	for _, d := range all {
		if !query.Match(fo.Filter, d) {
			continue
		}
		if skipped < fo.Skip {
			skipped++
			continue
		}
		out = append(out, project(d, fo.Fields))
		if fo.Limit > 0 && int64(len(out)) >= fo.Limit {
			break
		}
	}
	return out, nil
}

// idsMatching lists the ids of documents matching e, evaluated in Go.
func (c *collection) idsMatching(ctx context.Context, e query.Expr, limit int64) ([]any, error) {
	docs, err := c.findLocal(ctx, store.FindOptions{Filter: e, Limit: limit})
	if err != nil {
		return nil, err
	}
	ids := make([]any, len(docs))
	for i, d := range docs {
		ids[i] = d["_id"]
	}
	return ids, nil
}

// serverable returns e in a form the server evaluates right: e itself, or
// on FerretDB the ids of the documents matching it in Go (at most limit).
func (c *collection) serverable(ctx context.Context, e query.Expr, limit int64) (query.Expr, error) {
	if !c.s.needsLocalMatch(e) {
		return e, nil
	}
	return c.byIDs(ctx, e, limit)
}

// byIDs turns a locally evaluated filter into one the server answers right.
func (c *collection) byIDs(ctx context.Context, e query.Expr, limit int64) (query.Expr, error) {
	ids, err := c.idsMatching(ctx, e, limit)
	if err != nil {
		return nil, err
	}
	return query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids}}}, nil
}

func project(d store.Doc, fields []string) store.Doc {
	if len(fields) == 0 {
		return d
	}
	out := store.Doc{"_id": d["_id"]}
	for _, f := range fields {
		if v, ok := lookup(d, f); ok {
			setPath(out, f, v)
		}
	}
	return out
}

func lookup(d map[string]any, path string) (any, bool) {
	head, rest, nested := strings.Cut(path, ".")
	v, ok := d[head]
	if !ok || !nested {
		return v, ok
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	return lookup(m, rest)
}

func setPath(d map[string]any, path string, v any) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		d[head] = v
		return
	}
	m, ok := d[head].(map[string]any)
	if !ok {
		m = map[string]any{}
		d[head] = m
	}
	setPath(m, rest, v)
}
