package sqlitestore

import (
	"strings"

	"platform/kernel/query"
	"platform/kernel/store"
)

// compiler turns a filter into an SQL condition with bound parameters.
//
// A field whose path holds no array in any document (the collection's
// shapes say so) compiles to comparisons of its key, which expression
// indexes serve. Anything else (a path through arrays, $regex, $size, $all,
// $elemMatch, comparisons with arrays or documents) is handed to
// query.Match through the platform_match SQL function, on the part of the
// document the path starts in, so the result is always MongoDB's.
type compiler struct {
	scoped  bool
	shapes  shapes
	args    []any
	matches []*matcher
}

func newCompiler(scoped bool, sh shapes) *compiler {
	return &compiler{scoped: scoped, shapes: sh}
}

// release unregisters the matchers of a finished statement.
func (c *compiler) release() {
	for _, m := range c.matches {
		m.release()
	}
}

func (c *compiler) arg(v any) string {
	c.args = append(c.args, v)
	return "?"
}

func (c *compiler) expr(e query.Expr) string {
	switch x := e.(type) {
	case nil:
		return "1"
	case query.And:
		return c.join(x.Exprs, " AND ", "1")
	case query.Or:
		return c.join(x.Exprs, " OR ", "0")
	case query.Nor:
		return "NOT " + definite(c.join(x.Exprs, " OR ", "0"))
	case query.Field:
		return c.field(x)
	}
	return c.fallback(e, "")
}

func (c *compiler) join(parts []query.Expr, op, empty string) string {
	if len(parts) == 0 {
		return empty
	}
	sqls := make([]string, len(parts))
	for i, p := range parts {
		sqls[i] = "(" + c.expr(p) + ")"
	}
	return strings.Join(sqls, op)
}

// definite makes a condition two-valued before NOT. Compiled conditions are
// NULL only where a missing field makes a comparison unknown, which means
// false; NOT NULL would stay NULL and lose the row.
func definite(sql string) string {
	return "coalesce((" + sql + "),0)"
}

func (c *compiler) field(f query.Field) string {
	if !c.shapes.flat(f.Path) {
		return c.fallback(f, f.Path)
	}
	mark := len(c.args)
	sql, ok := c.conds(f.Path, f.Conds)
	if !ok {
		c.args = c.args[:mark]
		return c.fallback(f, f.Path)
	}
	return sql
}

func (c *compiler) conds(path string, conds []query.Cond) (string, bool) {
	parts := make([]string, 0, len(conds))
	for _, cond := range conds {
		sql, ok := c.cond(path, cond)
		if !ok {
			return "", false
		}
		parts = append(parts, sql)
	}
	if len(parts) == 0 {
		return "1", true
	}
	return strings.Join(parts, " AND "), true
}

func (c *compiler) cond(path string, cond query.Cond) (string, bool) {
	switch x := cond.(type) {
	case query.Compare:
		return c.compare(path, x.Op, x.Value)
	case query.In:
		return c.in(path, x)
	case query.Exists:
		return c.exists(path, x.Want)
	case query.Not:
		inner, ok := c.conds(path, x.Conds)
		if !ok {
			return "", false
		}
		return "NOT " + definite(inner), true
	}
	return "", false
}

func (c *compiler) compare(path string, op query.Op, v any) (string, bool) {
	key, ok := keyExpr(path, c.scoped)
	if !ok {
		return "", false
	}
	param, class := filterKey(v)
	switch {
	case class == classNone:
		return "", false
	case class == classNull:
		return nullCompare(key, op), true
	case op == query.OpEq:
		return key + " = " + c.arg(param), true
	case op == query.OpNe:
		return key + " IS NOT " + c.arg(param), true
	}
	lower, upper := classBounds(class)
	switch op {
	case query.OpGt:
		return key + " > " + c.arg(param) + " AND " + key + " < " + upper, true
	case query.OpGte:
		return key + " >= " + c.arg(param) + " AND " + key + " < " + upper, true
	case query.OpLt:
		return key + " < " + c.arg(param) + lowerBound(key, lower), true
	case query.OpLte:
		return key + " <= " + c.arg(param) + lowerBound(key, lower), true
	}
	return "", false
}

func lowerBound(key, lower string) string {
	if lower == "" {
		return ""
	}
	return " AND " + key + " >= " + lower
}

// nullCompare follows MongoDB: null equals null and missing, and is in a
// bracket of its own, so $gt and $lt null match nothing.
func nullCompare(key string, op query.Op) string {
	switch op {
	case query.OpEq, query.OpGte, query.OpLte:
		return key + " IS NULL"
	case query.OpNe:
		return key + " IS NOT NULL"
	}
	return "0"
}

func (c *compiler) in(path string, in query.In) (string, bool) {
	key, ok := keyExpr(path, c.scoped)
	if !ok {
		return "", false
	}
	var marks []string
	null := false
	for _, v := range in.Values {
		param, class := filterKey(v)
		switch class {
		case classNone:
			return "", false
		case classNull:
			null = true
		default:
			marks = append(marks, c.arg(param))
		}
	}
	var terms []string
	if len(marks) > 0 {
		terms = append(terms, key+" IN ("+strings.Join(marks, ",")+")")
	}
	if null {
		terms = append(terms, key+" IS NULL")
	}
	sql := "0"
	if len(terms) > 0 {
		sql = strings.Join(terms, " OR ")
	}
	if in.Not {
		return "NOT " + definite(sql), true
	}
	return "(" + sql + ")", true
}

func (c *compiler) exists(path string, want bool) (string, bool) {
	sql, ok := existsExpr(path, c.scoped)
	if !ok {
		return "", false
	}
	if want {
		return sql, true
	}
	return "NOT (" + sql + ")", true
}

// fallback evaluates e with query.Match in Go. When the path's first
// component can be named, only that part of the document is decoded.
func (c *compiler) fallback(e query.Expr, path string) string {
	m := registerMatcher(e, topField(path))
	c.matches = append(c.matches, m)
	return "platform_match(" + source(m.top) + "," + c.arg(m.id) + ")"
}

// source is the SQL giving a Go function the JSON of the document's field
// top, or of the whole document when top is "".
func source(top string) string {
	if top == "" {
		return "doc"
	}
	jp, _ := jsonPath(top)
	return "doc->" + sqlText(jp)
}

// topField is the first component of path when a JSON path can name it.
func topField(path string) string {
	top, _, _ := strings.Cut(path, ".")
	if _, ok := jsonPath(top); !ok || top == "" {
		return ""
	}
	return top
}

// filterKey normalizes a filter value and returns its key parameter.
func filterKey(v any) (any, keyClass) {
	n, err := normalize(v)
	if err != nil {
		return nil, classNone
	}
	return scalarKey(n)
}

// orderBy compiles a sort. No sort is natural order, insertion order. Ties
// of a sort come in the order of the index or sorter serving it, which is
// stable from call to call; as with MongoDB, a sort that must page
// reliably ends with a unique field. (Breaking ties by insertion order
// would stop an index scanned backwards from serving a sort.)
func (c *compiler) orderBy(sort []store.SortField) string {
	if len(sort) == 0 {
		return "rid"
	}
	parts := make([]string, 0, len(sort))
	for _, f := range sort {
		parts = append(parts, c.sortKey(f)+direction(f.Desc))
	}
	return strings.Join(parts, ", ")
}

func direction(desc bool) string {
	if desc {
		return " DESC"
	}
	return ""
}

// sortKey uses the indexed key where the path holds only scalars, and
// otherwise a key computed in Go (arrays sort by their smallest element
// ascending and largest descending; documents field by field).
func (c *compiler) sortKey(f store.SortField) string {
	if c.shapes.scalar(f.Field) {
		if key, ok := keyExpr(f.Field, c.scoped); ok {
			return key
		}
	}
	top := topField(f.Field)
	desc := 0
	if f.Desc {
		desc = 1
	}
	return "platform_sortkey(" + source(top) + "," + c.arg(top) + "," + c.arg(f.Field) + "," + c.arg(desc) + ")"
}
