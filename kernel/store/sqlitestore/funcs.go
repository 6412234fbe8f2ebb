package sqlitestore

import (
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"

	"platform/kernel/query"
	"platform/kernel/store"
)

// SQL functions for what SQL cannot say exactly: platform_match evaluates a
// filter with query.Match, platform_sortkey computes MongoDB's sort key of a
// path that holds arrays or documents. Neither appears in an index, so the
// database file stays usable by any SQLite tool.
func init() {
	sqlite.MustRegisterScalarFunction("platform_match", 2, sqlMatch)
	sqlite.MustRegisterDeterministicScalarFunction("platform_sortkey", 4, sqlSortKey)
}

// matcher is a filter part a statement evaluates in Go; statements refer to
// it by id, a bound parameter, so statement text stays cacheable.
type matcher struct {
	id   int64
	expr query.Expr
	// top is the field the statement passes the value of; "" means the
	// whole document.
	top string
}

var (
	matchers  sync.Map // int64 -> *matcher
	matcherID atomic.Int64
)

func registerMatcher(e query.Expr, top string) *matcher {
	m := &matcher{id: matcherID.Add(1), expr: e, top: top}
	matchers.Store(m.id, m)
	return m
}

func (m *matcher) release() { matchers.Delete(m.id) }

func sqlMatch(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	id, _ := args[1].(int64)
	v, ok := matchers.Load(id)
	if !ok {
		return nil, fmt.Errorf("platform_match: unknown filter %d", id)
	}
	m := v.(*matcher)
	doc, err := sourceDoc(args[0], m.top)
	if err != nil {
		return nil, err
	}
	if query.Match(m.expr, doc) {
		return int64(1), nil
	}
	return int64(0), nil
}

// sourceDoc rebuilds the document (or the part of it under top) a function
// was given as JSON text; NULL means top is missing.
func sourceDoc(arg driver.Value, top string) (store.Doc, error) {
	var text []byte
	switch x := arg.(type) {
	case nil:
		return store.Doc{}, nil
	case string:
		text = []byte(x)
	case []byte:
		text = x
	default:
		return nil, fmt.Errorf("sqlitestore: function given a %T", arg)
	}
	v, err := decodeValue(text)
	if err != nil {
		return nil, err
	}
	if top == "" {
		d, ok := v.(store.Doc)
		if !ok {
			return nil, fmt.Errorf("sqlitestore: document expected")
		}
		return d, nil
	}
	return store.Doc{top: v}, nil
}

func sqlSortKey(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	top, _ := args[1].(string)
	path, _ := args[2].(string)
	desc, _ := args[3].(int64)
	doc, err := sourceDoc(args[0], top)
	if err != nil {
		return nil, err
	}
	return sortKeyOf(doc, path, desc == 1), nil
}

// emptyArray stands for an empty array in a sort, where MongoDB places it
// before null and missing.
type emptyArray struct{}

// sortKeyOf is the bytewise-ordered key of doc's value at path for a sort:
// an array sorts by its smallest element ascending and its largest
// descending, a missing value as null.
func sortKeyOf(doc store.Doc, path string, desc bool) []byte {
	var vals []any
	sortValues(doc, strings.Split(path, "."), &vals)
	if len(vals) == 0 {
		vals = append(vals, nil)
	}
	best := vals[0]
	for _, v := range vals[1:] {
		n := sortOrder(v, best)
		if desc && n > 0 || !desc && n < 0 {
			best = v
		}
	}
	return appendSortKey(nil, best)
}

func sortOrder(a, b any) int {
	_, ea := a.(emptyArray)
	_, eb := b.(emptyArray)
	switch {
	case ea && eb:
		return 0
	case ea:
		return -1
	case eb:
		return 1
	}
	return query.Order(a, b)
}

// sortValues collects the values path reaches, through arrays of documents
// and numeric positions, as MongoDB's sort key generation does.
func sortValues(v any, parts []string, out *[]any) {
	if len(parts) == 0 {
		leafSortValues(v, out)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[parts[0]]
		if !ok {
			*out = append(*out, nil)
			return
		}
		sortValues(child, parts[1:], out)
	case []any:
		if i, err := strconv.Atoi(parts[0]); err == nil && i >= 0 && i < len(x) {
			sortValues(x[i], parts[1:], out)
			return
		}
		for _, el := range x {
			if m, ok := el.(map[string]any); ok {
				sortValues(m, parts, out)
			}
		}
	default:
		*out = append(*out, nil)
	}
}

func leafSortValues(v any, out *[]any) {
	arr, ok := v.([]any)
	if !ok {
		*out = append(*out, v)
		return
	}
	if len(arr) == 0 {
		*out = append(*out, emptyArray{})
		return
	}
	*out = append(*out, arr...)
}

// Sort key bytes: a bracket byte in MongoDB's type order, then a bytewise
// ordered encoding of the value, matching query.Order.
const (
	sortEmptyArray byte = iota + 1
	sortNull
	sortNumber
	sortString
	sortObject
	sortArray
	sortBool
	sortDate
)

func appendSortKey(b []byte, v any) []byte {
	switch x := v.(type) {
	case emptyArray:
		return append(b, sortEmptyArray)
	case nil:
		return append(b, sortNull)
	case int64:
		return appendNumberKey(append(b, sortNumber), float64(x), intResidual(x))
	case float64:
		if math.IsNaN(x) {
			return append(b, sortNumber, 0)
		}
		return appendNumberKey(append(b, sortNumber), x, 0)
	case string:
		return appendStringKey(append(b, sortString), x)
	case map[string]any:
		return appendObjectKey(append(b, sortObject), x)
	case []any:
		b = append(b, sortArray)
		for _, e := range x {
			b = appendSortKey(append(b, 1), e)
		}
		return append(b, 0)
	case bool:
		if x {
			return append(b, sortBool, 1)
		}
		return append(b, sortBool, 0)
	case time.Time:
		return binary.BigEndian.AppendUint64(append(b, sortDate), uint64(x.UnixMilli())^1<<63)
	}
	return append(b, sortNull)
}

// appendNumberKey orders numbers by their float64 value and then by the
// int64 remainder the float lost, so int64 and float64 compare exactly.
func appendNumberKey(b []byte, f float64, residual int64) []byte {
	if f == 0 {
		f = 0 // -0 equals 0
	}
	bits := math.Float64bits(f)
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	b = append(b, 1)
	b = binary.BigEndian.AppendUint64(b, bits)
	return binary.BigEndian.AppendUint64(b, uint64(residual)^1<<63)
}

// intResidual is i minus float64(i), exactly.
func intResidual(i int64) int64 {
	f := float64(i)
	if f >= math.MaxInt64 { // 2^63 does not fit an int64
		return i - math.MaxInt64 - 1
	}
	return i - int64(f)
}

// appendStringKey escapes 0x00 so that a terminator sorts a prefix first.
func appendStringKey(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			b = append(b, 0, 0xff)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, 0, 0)
}

func appendObjectKey(b []byte, m map[string]any) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = appendStringKey(append(b, 1), k)
		b = appendSortKey(b, m[k])
	}
	return append(b, 0)
}
