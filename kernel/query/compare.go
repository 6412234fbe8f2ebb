package query

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// bracket is MongoDB's canonical type order: values compare only within a
// bracket, and sort by bracket first.
type bracket int

const (
	bracketUnknown bracket = iota
	bracketNull
	bracketNumber
	bracketString
	bracketObject
	bracketArray
	bracketBool
	bracketDate
)

func bracketOf(v any) bracket {
	switch v.(type) {
	case nil:
		return bracketNull
	case int64, float64, int, int32:
		return bracketNumber
	case string:
		return bracketString
	case map[string]any:
		return bracketObject
	case []any:
		return bracketArray
	case bool:
		return bracketBool
	case time.Time:
		return bracketDate
	}
	return bracketUnknown
}

// CompareValues orders a and b when they are in the same MongoDB type bracket
// (int64 and float64 together; strings bytewise as MongoDB's default
// collation does; dates; false before true; null equals null; arrays and
// objects element by element). ok is false across brackets, where MongoDB's
// comparison operators never match.
func CompareValues(a, b any) (int, bool) {
	ba, bb := bracketOf(a), bracketOf(b)
	if ba != bb || ba == bracketUnknown {
		return 0, false
	}
	return compareSameBracket(ba, a, b), true
}

// Order is a total order over document values, as MongoDB sorts them: by
// bracket (null, numbers, strings, objects, arrays, booleans, dates), then
// by CompareValues. A sorter must treat a missing field as null and, like
// MongoDB, sort an array field by its smallest element ascending or its
// largest descending; Order compares arrays as wholes.
func Order(a, b any) int {
	ba, bb := bracketOf(a), bracketOf(b)
	if ba != bb {
		return cmp.Compare(ba, bb)
	}
	if ba == bracketUnknown {
		return 0
	}
	return compareSameBracket(ba, a, b)
}

func compareSameBracket(br bracket, a, b any) int {
	switch br {
	case bracketNumber:
		return compareNumbers(a, b)
	case bracketString:
		return cmp.Compare(a.(string), b.(string))
	case bracketObject:
		return compareObjects(a.(map[string]any), b.(map[string]any))
	case bracketArray:
		return compareArrays(a.([]any), b.([]any))
	case bracketBool:
		return compareBools(a.(bool), b.(bool))
	case bracketDate:
		return a.(time.Time).Compare(b.(time.Time))
	}
	return 0 // null
}

func compareBools(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// compareArrays is element by element, then the shorter first.
func compareArrays(a, b []any) int {
	for i := range min(len(a), len(b)) {
		if n := Order(a[i], b[i]); n != 0 {
			return n
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareObjects compares by sorted field names: MongoDB uses stored order,
// which maps do not keep, so equality (what filters rely on) is exact and
// the ordering of unequal objects is merely consistent.
func compareObjects(a, b map[string]any) int {
	ka, kb := mapKeys(a), mapKeys(b)
	for i := range min(len(ka), len(kb)) {
		if n := cmp.Compare(ka[i], kb[i]); n != 0 {
			return n
		}
		if n := Order(a[ka[i]], b[ka[i]]); n != 0 {
			return n
		}
	}
	return cmp.Compare(len(ka), len(kb))
}

func mapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compareNumbers compares exactly across int64 and float64 (a float64
// cannot hold every int64). NaN equals NaN and sorts below every number,
// as in MongoDB.
func compareNumbers(a, b any) int {
	ia, aInt := asInt(a)
	ib, bInt := asInt(b)
	switch {
	case aInt && bInt:
		return cmp.Compare(ia, ib)
	case aInt:
		return -compareFloatInt(b.(float64), ia)
	case bInt:
		return compareFloatInt(a.(float64), ib)
	}
	return compareFloats(a.(float64), b.(float64))
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	}
	return 0, false
}

func compareFloats(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return -1
	case math.IsNaN(b):
		return 1
	}
	return cmp.Compare(a, b)
}

func compareFloatInt(f float64, i int64) int {
	switch {
	case math.IsNaN(f):
		return -1
	case f >= math.MaxInt64: // 2^63: above every int64
		return 1
	case f < math.MinInt64:
		return -1
	}
	whole := math.Trunc(f)
	if n := cmp.Compare(int64(whole), i); n != 0 {
		return n
	}
	return cmp.Compare(f, whole)
}
