package mongostore

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"platform/kernel/query"
)

// compileFilter turns a parsed filter into a MongoDB filter document. The
// two mean the same by construction (query.Match mirrors MongoDB), which
// filter_property_test.go checks against a server.
func compileFilter(e query.Expr) (bson.D, error) {
	if e == nil {
		return bson.D{}, nil
	}
	return compileExpr(e)
}

func compileExpr(e query.Expr) (bson.D, error) {
	switch x := e.(type) {
	case query.And:
		return compileAnd(x.Exprs)
	case query.Or:
		return compileLogical("$or", x.Exprs, matchNothingFilter)
	case query.Nor:
		return compileLogical("$nor", x.Exprs, matchAllFilter)
	case query.Field:
		return compileField(x)
	case nil:
		return matchAllFilter(), nil
	}
	return nil, fmt.Errorf("mongostore: unknown filter expression %T", e)
}

// matchAllFilter is the filter {}. MongoDB rejects an empty $and/$or/$nor list, so
// an empty one compiles to what it means instead.
func matchAllFilter() bson.D { return bson.D{} }

func matchNothingFilter() bson.D { return bson.D{{Key: "$nor", Value: bson.A{bson.D{}}}} }

func compileLogical(op string, parts []query.Expr, empty func() bson.D) (bson.D, error) {
	if len(parts) == 0 {
		return empty(), nil
	}
	list := make(bson.A, 0, len(parts))
	for _, p := range parts {
		d, err := compileExpr(p)
		if err != nil {
			return nil, err
		}
		list = append(list, d)
	}
	return bson.D{{Key: op, Value: list}}, nil
}

// compileAnd writes {"a": ..., "b": ...} rather than an $and when the parts
// name different fields: the usual form, and the one FerretDB accepts inside
// $elemMatch.
func compileAnd(parts []query.Expr) (bson.D, error) {
	merged := bson.D{}
	for _, p := range parts {
		d, err := compileExpr(p)
		if err != nil {
			return nil, err
		}
		merged = append(merged, d...)
	}
	if !hasDuplicateKeys(merged) {
		return merged, nil
	}
	return compileLogical("$and", parts, matchAllFilter)
}

// compileField puts all conditions in one operator document; two of the same
// operator (possible in a hand-built Expr) cannot share one, so those go
// into an $and of one condition each.
func compileField(f query.Field) (bson.D, error) {
	if len(f.Conds) == 0 {
		return matchAllFilter(), nil
	}
	ops, err := compileConds(f.Conds)
	if err != nil {
		return nil, err
	}
	if !hasDuplicateKeys(ops) {
		return bson.D{{Key: f.Path, Value: ops}}, nil
	}
	parts := make(bson.A, 0, len(f.Conds))
	for _, c := range f.Conds {
		one, err := compileConds([]query.Cond{c})
		if err != nil {
			return nil, err
		}
		parts = append(parts, bson.D{{Key: f.Path, Value: one}})
	}
	return bson.D{{Key: "$and", Value: parts}}, nil
}

func hasDuplicateKeys(d bson.D) bool {
	seen := make(map[string]bool, len(d))
	for _, e := range d {
		if seen[e.Key] {
			return true
		}
		seen[e.Key] = true
	}
	return false
}

// compileConds gives the operator document of a field, such as
// {"$gt": 1, "$lt": 5}.
func compileConds(conds []query.Cond) (bson.D, error) {
	if len(conds) == 0 {
		return nil, errEmptyConds
	}
	out := make(bson.D, 0, len(conds))
	for _, c := range conds {
		ops, err := compileCond(c)
		if err != nil {
			return nil, err
		}
		out = append(out, ops...)
	}
	return out, nil
}

var errEmptyConds = errors.New("mongostore: an operator in the filter has no conditions")

func compileCond(c query.Cond) (bson.D, error) {
	switch x := c.(type) {
	case query.Compare:
		return opDoc(string(x.Op), filterValue(x.Value)), nil
	case query.In:
		return opDoc(inOperator(x.Not), filterArray(x.Values)), nil
	case query.Exists:
		return opDoc("$exists", x.Want), nil
	case query.Regex:
		return compileRegex(x), nil
	case query.Size:
		return opDoc("$size", int64(x.N)), nil
	case query.All:
		return opDoc("$all", filterArray(x.Values)), nil
	case query.ElemMatch:
		return compileElemMatch(x)
	case query.Not:
		if len(x.Conds) == 0 {
			return opDoc("$in", bson.A{}), nil // not(nothing required): never true, as in query.Match
		}
		inner, err := compileConds(x.Conds)
		if err != nil {
			return nil, err
		}
		return opDoc("$not", inner), nil
	}
	return nil, fmt.Errorf("mongostore: unknown filter condition %T", c)
}

func opDoc(op string, v any) bson.D { return bson.D{{Key: op, Value: v}} }

func inOperator(not bool) string {
	if not {
		return "$nin"
	}
	return "$in"
}

func compileRegex(r query.Regex) bson.D {
	if r.Options == "" {
		return opDoc("$regex", r.Pattern)
	}
	return bson.D{{Key: "$regex", Value: r.Pattern}, {Key: "$options", Value: r.Options}}
}

func compileElemMatch(em query.ElemMatch) (bson.D, error) {
	if em.Expr != nil {
		inner, err := compileExpr(em.Expr)
		if err != nil {
			return nil, err
		}
		return opDoc("$elemMatch", inner), nil
	}
	inner, err := compileConds(em.Conds)
	if err != nil {
		return nil, err
	}
	return opDoc("$elemMatch", inner), nil
}

// filterValue converts a filter operand for the driver. Times go in as UTC (the
// driver writes BSON dates); arrays must stay arrays even when empty, where
// the driver would write a nil slice as null.
func filterValue(v any) any {
	switch x := v.(type) {
	case []any:
		return filterArray(x)
	case map[string]any:
		d := make(bson.D, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			d = append(d, bson.E{Key: k, Value: filterValue(x[k])})
		}
		return d
	case time.Time:
		return x.UTC()
	case int:
		return int64(x)
	}
	return v
}

func filterArray(vs []any) bson.A {
	out := make(bson.A, 0, len(vs))
	for _, v := range vs {
		out = append(out, filterValue(v))
	}
	return out
}
