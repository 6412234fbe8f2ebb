// Package storetest is the contract every store.Store implementation must
// pass, with MongoDB's results as the reference: Run it from each
// implementation's tests.
//
// Data sets are small (a few dozen documents per case) because one of the
// implementations under test, FerretDB, scans a collection for every sort
// and count.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// Run runs the contract. open must return a new, empty store for each
// call (for MongoDB, a new database) and close it when t ends.
//
// unsupported names cases an implementation cannot pass, with the reason;
// they are skipped with that reason, visibly, never silently.
func Run(t *testing.T, open func(t *testing.T) store.Store, unsupported ...Unsupported) {
	cases := []struct {
		name string
		run  func(*testing.T, store.Store)
	}{
		{"CRUD", testCRUD},
		{"InsertWithoutID", testInsertWithoutID},
		{"InsertMany", testInsertMany},
		{"UpdateOperators", testUpdateOperators},
		{"UpdateErrors", testUpdateErrors},
		{"ConditionalUpdate", testConditionalUpdate},
		{"Upsert", testUpsert},
		{"UpdateMany", testUpdateMany},
		{"Replace", testReplace},
		{"Delete", testDelete},
		{"Operators", testOperators},
		{"OperatorsIndexed", testOperatorsIndexed},
		{"NestedArrays", testNestedArrays},
		{"Sort", testSort},
		{"SortMixedTypes", testSortMixedTypes},
		{"SortArrays", testSortArrays},
		{"Pagination", testPagination},
		{"Projection", testProjection},
		{"UniquePerCustomer", testUniquePerCustomer},
		{"UniqueMissingField", testUniqueMissingField},
		{"UniqueSparse", testUniqueSparse},
		{"UniqueCompound", testUniqueCompound},
		{"UniqueConcurrentInserts", testUniqueConcurrentInserts},
		{"ConcurrentIncrements", testConcurrentIncrements},
		{"ConcurrentUpsertCounter", testConcurrentUpsertCounter},
		{"ConcurrentConditionalDecrement", testConcurrentConditionalDecrement},
		{"TenantIsolation", testTenantIsolation},
		{"TenantIDsShareOneSpace", testTenantIDsShareOneSpace},
		{"TenantCannotBeChanged", testTenantCannotBeChanged},
		{"MissingTenant", testMissingTenant},
		{"Global", testGlobal},
		{"LargeDocument", testLargeDocument},
		{"Unicode", testUnicode},
		{"NestedReservedKeys", testNestedReservedKeys},
		{"TypeRoundTrip", testTypeRoundTrip},
		{"SpecialFloats", testSpecialFloats},
		{"Cancelled", testCancelled},
		{"WriteFaults", testWriteFaults},
		{"PingProvesWrites", testPingProvesWrites},
	}
	cases = append(cases, countCases...)
	skip := map[string]string{}
	for _, u := range unsupported {
		skip[u.Case] = u.Reason
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if reason, ok := skip[c.name]; ok {
				t.Skip("unsupported here: " + reason)
			}
			c.run(t, open(t))
		})
	}
}

// Unsupported is a contract case an implementation is known to fail.
type Unsupported struct{ Case, Reason string }

// Customers of the tests.
var (
	ctxA = tenant.WithCustomer(context.Background(), "customer-a")
	ctxB = tenant.WithCustomer(context.Background(), "customer-b")
)

// date is a UTC time at millisecond precision, as stores keep them.
func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// Filter builders: the AST, not parsed JSON, so values keep exact types.
func field(path string, conds ...query.Cond) query.Expr {
	return query.Field{Path: path, Conds: conds}
}

func eq(v any) query.Cond  { return query.Compare{Op: query.OpEq, Value: v} }
func ne(v any) query.Cond  { return query.Compare{Op: query.OpNe, Value: v} }
func gt(v any) query.Cond  { return query.Compare{Op: query.OpGt, Value: v} }
func gte(v any) query.Cond { return query.Compare{Op: query.OpGte, Value: v} }
func lt(v any) query.Cond  { return query.Compare{Op: query.OpLt, Value: v} }
func lte(v any) query.Cond { return query.Compare{Op: query.OpLte, Value: v} }
func in(vs ...any) query.Cond {
	return query.In{Values: append([]any{}, vs...)}
}
func nin(vs ...any) query.Cond {
	return query.In{Values: append([]any{}, vs...), Not: true}
}
func and(es ...query.Expr) query.Expr { return query.And{Exprs: es} }
func or(es ...query.Expr) query.Expr  { return query.Or{Exprs: es} }
func nor(es ...query.Expr) query.Expr { return query.Nor{Exprs: es} }

func insert(t *testing.T, ctx context.Context, c store.Collection, docs ...store.Doc) {
	t.Helper()
	for _, d := range docs {
		if err := c.Insert(ctx, d); err != nil {
			t.Fatalf("insert %v: %v", d["_id"], err)
		}
	}
}

func get(t *testing.T, ctx context.Context, c store.Collection, id string) store.Doc {
	t.Helper()
	d, err := c.Get(ctx, id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return d
}

func find(t *testing.T, ctx context.Context, c store.Collection, o store.FindOptions) []store.Doc {
	t.Helper()
	docs, err := c.Find(ctx, o)
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	return docs
}

func count(t *testing.T, ctx context.Context, c store.Collection, f query.Expr) int64 {
	t.Helper()
	n, err := c.Count(ctx, f)
	if err != nil {
		t.Fatalf("count: %v", err)
	}
	return n
}

func ids(docs []store.Doc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i], _ = d["_id"].(string)
	}
	return out
}

func sortedIDs(docs []store.Doc) []string {
	out := ids(docs)
	sort.Strings(out)
	return out
}

func wantErr(t *testing.T, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want %v", what, err, target)
	}
}

func wantDuplicate(t *testing.T, err error, fields []string, what string) {
	t.Helper()
	var d *store.DuplicateError
	if !errors.As(err, &d) {
		t.Errorf("%s: got error %v, want a DuplicateError", what, err)
		return
	}
	if fields != nil && !slices.Equal(d.Fields, fields) {
		t.Errorf("%s: DuplicateError fields %v, want %v", what, d.Fields, fields)
	}
}

// sameDoc compares documents exactly: types included (int64 is not
// float64), times with Equal.
func sameDoc(t *testing.T, got, want store.Doc, what string) {
	t.Helper()
	if diff := diffValues(got, want, ""); diff != "" {
		t.Errorf("%s: %s\n got: %#v\nwant: %#v", what, diff, got, want)
	}
}

func diffValues(got, want any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %T, want a document", path, got)
		}
		return diffMaps(g, w, path)
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %T %v, want an array", path, got, got)
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: got %d elements, want %d", path, len(g), len(w))
		}
		for i := range w {
			if d := diffValues(g[i], w[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case time.Time:
		g, ok := got.(time.Time)
		if !ok || !g.Equal(w) || g.Location() != time.UTC {
			return fmt.Sprintf("%s: got %T %v, want UTC time %v", path, got, got, w)
		}
		return ""
	case float64:
		g, ok := got.(float64)
		if !ok || !(g == w || math.IsNaN(g) && math.IsNaN(w)) || math.Signbit(g) != math.Signbit(w) {
			return fmt.Sprintf("%s: got %T %v, want float64 %v", path, got, got, w)
		}
		return ""
	}
	if reflect.TypeOf(got) != reflect.TypeOf(want) || got != want {
		return fmt.Sprintf("%s: got %T %#v, want %T %#v", path, got, got, want, want)
	}
	return ""
}

func diffMaps(got, want map[string]any, path string) string {
	for k, wv := range want {
		gv, ok := got[k]
		if !ok {
			return fmt.Sprintf("%s: missing", joinPath(path, k))
		}
		if d := diffValues(gv, wv, joinPath(path, k)); d != "" {
			return d
		}
	}
	var extra []string
	for k := range got {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Sprintf("%s: unexpected fields %s", path, strings.Join(extra, ", "))
	}
	return ""
}

func joinPath(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}
