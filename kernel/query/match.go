package query

import (
	"math"
	"strconv"
	"strings"
)

// Match evaluates e against doc with MongoDB's semantics (implicit array
// traversal, type brackets, null matching missing fields). A nil e matches
// every document.
func Match(e Expr, doc map[string]any) bool {
	switch x := e.(type) {
	case nil:
		return true
	case And:
		for _, part := range x.Exprs {
			if !Match(part, doc) {
				return false
			}
		}
		return true
	case Or:
		for _, part := range x.Exprs {
			if Match(part, doc) {
				return true
			}
		}
		return false
	case Nor:
		for _, part := range x.Exprs {
			if Match(part, doc) {
				return false
			}
		}
		return true
	case Field:
		return condsHold(x.Conds, lookup(doc, x.Path))
	}
	return false
}

// candidate is one value a dotted path reaches in a document. A path
// through arrays reaches many; a condition holds when it holds for one of
// them (MongoDB's BSONElementIterator, whose rules lookup follows).
type candidate struct {
	value   any
	missing bool
	// expanded marks an element offered in place of the leaf array holding
	// it; $size and $elemMatch look at arrays themselves and skip these.
	expanded bool
}

func lookup(doc map[string]any, path string) []candidate {
	var out []candidate
	collect(doc, strings.Split(path, "."), &out)
	return out
}

func collect(v any, parts []string, out *[]candidate) {
	if len(parts) == 0 {
		collectLeaf(v, out)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[parts[0]]
		if !ok {
			*out = append(*out, candidate{missing: true})
			return
		}
		collect(child, parts[1:], out)
	case []any:
		collectThroughArray(x, parts, out)
	default:
		*out = append(*out, candidate{missing: true})
	}
}

func collectLeaf(v any, out *[]candidate) {
	if arr, ok := v.([]any); ok {
		for _, el := range arr {
			*out = append(*out, candidate{value: el, expanded: true})
		}
	}
	*out = append(*out, candidate{value: v})
}

// collectThroughArray continues a path that meets an array before its end:
// documents in the array are searched for the rest of the path, and a
// numeric part ("items.0.price") also selects the element at that index.
// Scalars in the array yield nothing, not even "missing".
func collectThroughArray(arr []any, parts []string, out *[]candidate) {
	for i, el := range arr {
		positional := parts[0] == strconv.Itoa(i)
		switch x := el.(type) {
		case map[string]any:
			collect(x, parts, out)
			if positional {
				collectAt(x, parts[1:], out)
			}
		case []any:
			if positional && len(parts) > 1 {
				collectThroughArray(x, parts[1:], out)
			} else if positional {
				*out = append(*out, candidate{value: x})
			}
		default:
			if positional && len(parts) == 1 {
				*out = append(*out, candidate{value: x})
			}
		}
	}
}

// collectAt follows the path after an array index; an element reached by
// its index is not expanded again even if it is an array.
func collectAt(el any, rest []string, out *[]candidate) {
	if len(rest) == 0 {
		*out = append(*out, candidate{value: el})
		return
	}
	collect(el, rest, out)
}

func condsHold(conds []Cond, cands []candidate) bool {
	for _, c := range conds {
		if !condHolds(c, cands) {
			return false
		}
	}
	return true
}

func condHolds(c Cond, cands []candidate) bool {
	switch x := c.(type) {
	case Compare:
		return compareHolds(x, cands)
	case In:
		return anyCandidate(cands, func(cd candidate) bool { return inValues(cd, x.Values) }) != x.Not
	case Exists:
		return anyCandidate(cands, func(cd candidate) bool { return !cd.missing }) == x.Want
	case Regex:
		return regexHolds(x, cands)
	case Size:
		return anyCandidate(cands, func(cd candidate) bool { return isArrayOfLen(cd, x.N) })
	case All:
		return allHolds(x, cands)
	case ElemMatch:
		return anyCandidate(cands, func(cd candidate) bool { return elemMatches(x, cd) })
	case Not:
		return !condsHold(x.Conds, cands)
	}
	return false
}

func anyCandidate(cands []candidate, f func(candidate) bool) bool {
	for _, cd := range cands {
		if f(cd) {
			return true
		}
	}
	return false
}

func compareHolds(c Compare, cands []candidate) bool {
	if c.Op == OpNe {
		return !compareHolds(Compare{Op: OpEq, Value: c.Value}, cands)
	}
	return anyCandidate(cands, func(cd candidate) bool { return compareOne(c.Op, cd, c.Value) })
}

// compareOne applies one comparison to one candidate. Null stands for
// missing too, and $gte/$lte null are $eq null (MongoDB's rule).
func compareOne(op Op, cd candidate, want any) bool {
	if want == nil {
		return (op == OpEq || op == OpGte || op == OpLte) && (cd.missing || cd.value == nil)
	}
	if cd.missing {
		return false
	}
	if op != OpEq && (isNaN(cd.value) || isNaN(want)) {
		return (op == OpGte || op == OpLte) && isNaN(cd.value) && isNaN(want)
	}
	n, ok := CompareValues(cd.value, want)
	if !ok {
		return false
	}
	switch op {
	case OpEq:
		return n == 0
	case OpGt:
		return n > 0
	case OpGte:
		return n >= 0
	case OpLt:
		return n < 0
	case OpLte:
		return n <= 0
	}
	return false
}

// isNaN: MongoDB orders NaN below every number for sorting and equality,
// but $lt, $gt, $lte and $gte match NaN only as NaN <= NaN and NaN >= NaN.
func isNaN(v any) bool {
	f, ok := v.(float64)
	return ok && math.IsNaN(f)
}

func inValues(cd candidate, values []any) bool {
	for _, v := range values {
		if compareOne(OpEq, cd, v) {
			return true
		}
	}
	return false
}

// allHolds treats $all as MongoDB does: an $and of equalities, so an empty
// list matches nothing.
func allHolds(a All, cands []candidate) bool {
	if len(a.Values) == 0 {
		return false
	}
	for _, v := range a.Values {
		if !compareHolds(Compare{Op: OpEq, Value: v}, cands) {
			return false
		}
	}
	return true
}

func regexHolds(r Regex, cands []candidate) bool {
	re, err := r.Compile()
	if err != nil {
		return false
	}
	return anyCandidate(cands, func(cd candidate) bool {
		s, ok := cd.value.(string)
		return ok && !cd.missing && re.MatchString(s)
	})
}

func isArrayOfLen(cd candidate, n int) bool {
	arr, ok := cd.value.([]any)
	return ok && !cd.expanded && len(arr) == n
}

func elemMatches(em ElemMatch, cd candidate) bool {
	arr, ok := cd.value.([]any)
	if !ok || cd.expanded {
		return false
	}
	for _, el := range arr {
		if elementMatches(em, el) {
			return true
		}
	}
	return false
}

// elementMatches applies $elemMatch to one element. Conditions on scalars
// see the element alone, without expanding it if it is an array; a filter
// on documents also sees an array element, as a document keyed "0", "1"...
func elementMatches(em ElemMatch, el any) bool {
	if em.Expr == nil {
		return condsHold(em.Conds, []candidate{{value: el}})
	}
	switch x := el.(type) {
	case map[string]any:
		return Match(em.Expr, x)
	case []any:
		return Match(em.Expr, arrayAsDocument(x))
	}
	return false
}

func arrayAsDocument(arr []any) map[string]any {
	doc := make(map[string]any, len(arr))
	for i, el := range arr {
		doc[strconv.Itoa(i)] = el
	}
	return doc
}
