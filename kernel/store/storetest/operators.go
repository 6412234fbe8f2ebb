package storetest

import (
	"slices"
	"sort"
	"testing"

	"platform/kernel/query"
	"platform/kernel/store"
)

// operatorDocs covers what filters distinguish: int64 and float64 of equal
// value, a number in a string, null and missing, arrays of scalars and of
// documents, a scalar where others hold arrays, nested documents, dates,
// and strings whose order depends on case and bytes. (Arrays of arrays,
// which FerretDB cannot store, have a case of their own.)
func operatorDocs() []store.Doc {
	return []store.Doc{
		{"_id": "d01", "n": int64(1), "f": 1.5, "s": "apple", "b": true, "t": date("2024-01-01T00:00:00Z"),
			"tags": []any{"red", "green"}, "sub": store.Doc{"x": int64(1), "y": "a"},
			"items": []any{store.Doc{"k": int64(1), "v": "a"}, store.Doc{"k": int64(2), "v": "b"}},
			"nul":   nil, "sc": []any{int64(1), int64(5), int64(9)}},
		{"_id": "d02", "n": int64(2), "f": 2.0, "s": "banana", "b": false, "t": date("2024-06-01T00:00:00Z"),
			"tags": []any{"blue"}, "sub": store.Doc{"x": int64(2), "y": "b"},
			"items": []any{store.Doc{"k": int64(3), "v": "c"}}, "sc": []any{int64(4), int64(6)}},
		{"_id": "d03", "n": int64(3), "f": -1.25, "s": "Cherry", "t": date("2025-01-01T00:00:00Z"),
			"tags": []any{}, "sub": store.Doc{"x": int64(3)}, "items": []any{}, "sc": int64(7)},
		{"_id": "d04", "n": int64(10), "s": "date", "tags": []any{"red"}, "sub": store.Doc{"y": "d"},
			"sc": []any{int64(10), int64(20)}},
		{"_id": "d05", "n": 1.0, "s": "apple pie", "tags": "red", "nul": "x"},
		{"_id": "d06", "n": "1", "s": "", "b": true},
		{"_id": "d07", "n": nil, "s": "éclair", "tags": []any{"y", "x"}},
		{"_id": "d08"},
		{"_id": "d09", "n": int64(9007199254740993), "s": "z\npie"},
		{"_id": "d10", "n": int64(-5), "s": "ZEBRA", "t": date("2023-12-31T23:59:59.999Z"),
			"sub": store.Doc{"x": store.Doc{"deep": true}}},
	}
}

type operatorCase struct {
	name   string
	filter query.Expr
	want   []string
}

func regex(p, o string) query.Cond { return query.Regex{Pattern: p, Options: o} }

func except(out ...string) []string {
	var all []string
	for _, d := range operatorDocs() {
		id := d["_id"].(string)
		if !slices.Contains(out, id) {
			all = append(all, id)
		}
	}
	return all
}

func operatorCases() []operatorCase {
	none := []string{}
	jan, jun := date("2024-01-01T00:00:00Z"), date("2024-06-01T00:00:00Z")
	return []operatorCase{
		{"int equals int and float", field("n", eq(int64(1))), []string{"d01", "d05"}},
		{"float equals int and float", field("n", eq(1.0)), []string{"d01", "d05"}},
		{"a number in a string is a string", field("n", eq("1")), []string{"d06"}},
		{"null matches null and missing", field("n", eq(nil)), []string{"d07", "d08"}},
		{"float field equals int", field("f", eq(int64(2))), []string{"d02"}},
		{"exact string", field("s", eq("apple")), []string{"d01"}},
		{"true", field("b", eq(true)), []string{"d01", "d06"}},
		{"false", field("b", eq(false)), []string{"d02"}},
		{"date", field("t", eq(jun)), []string{"d02"}},
		{"array element or scalar", field("tags", eq("red")), []string{"d01", "d04", "d05"}},
		{"whole array", field("tags", eq([]any{"red", "green"})), []string{"d01"}},
		{"array equal to an array", field("tags", eq([]any{"red"})), []string{"d04"}},
		{"empty array", field("tags", eq([]any{})), []string{"d03"}},
		{"nested field", field("sub.x", eq(int64(1))), []string{"d01"}},
		{"nested string", field("sub.y", eq("d")), []string{"d04"}},
		{"nested document", field("sub.x", eq(store.Doc{"deep": true})), []string{"d10"}},
		{"array of documents", field("items.k", eq(int64(2))), []string{"d01"}},
		{"array position", field("items.0.k", eq(int64(3))), []string{"d02"}},
		{"second array position", field("items.1.v", eq("b")), []string{"d01"}},
		{"numeric array element", field("sc", eq(int64(5))), []string{"d01"}},
		{"null field and missing fields", field("nul", eq(nil)), except("d05")},
		{"$ne", field("n", ne(int64(1))), except("d01", "d05")},
		{"$ne on arrays", field("tags", ne("red")), except("d01", "d04", "d05")},
		{"$ne null", field("n", ne(nil)), except("d07", "d08")},
		{"$ne date", field("t", ne(jun)), except("d02")},
		{"$ne document", field("sub", ne(store.Doc{"x": int64(3)})), except("d03")},
		{"$gt numbers only", field("n", gt(int64(2))), []string{"d03", "d04", "d09"}},
		{"$gte", field("n", gte(int64(1))), []string{"d01", "d02", "d03", "d04", "d05", "d09"}},
		{"$lt", field("n", lt(int64(1))), []string{"d10"}},
		{"$lte", field("n", lte(int64(1))), []string{"d01", "d05", "d10"}},
		{"$gt 2^53 as float", field("n", gt(9007199254740992.0)), []string{"d09"}},
		{"$gt 2^53 as int", field("n", gt(int64(9007199254740992))), []string{"d09"}},
		{"$gt strings, bytewise", field("s", gt("b")), []string{"d02", "d04", "d07", "d09"}},
		{"$lt strings", field("s", lt("a")), []string{"d03", "d06", "d10"}},
		{"$gte date", field("t", gte(jan)), []string{"d01", "d02", "d03"}},
		{"$lt date", field("t", lt(jan)), []string{"d10"}},
		{"$gt on array elements", field("sc", gt(int64(8))), []string{"d01", "d04"}},
		{"range on arrays: any elements", field("sc", gt(int64(5)), lt(int64(8))), []string{"d01", "d02", "d03"}},
		{"$elemMatch range: one element", field("sc", query.ElemMatch{Conds: []query.Cond{gt(int64(5)), lt(int64(8))}}), []string{"d02"}},
		{"$gt false", field("b", gt(false)), []string{"d01", "d06"}},
		{"$gt null", field("n", gt(nil)), none},
		{"$gte null", field("n", gte(nil)), []string{"d07", "d08"}},
		{"$lte float", field("f", lte(1.5)), []string{"d01", "d03"}},
		{"$gt a string among numbers", field("n", gt("0")), []string{"d06"}},
		{"$gt a string on dates", field("t", gt("2024")), none},
		{"$gt through an array of documents", field("items.k", gt(int64(2))), []string{"d02"}},
		{"$in mixed", field("n", in(int64(2), "1", nil)), []string{"d02", "d06", "d07", "d08"}},
		{"$in on arrays", field("tags", in("blue", "x")), []string{"d02", "d07"}},
		{"$in an array", field("tags", in([]any{"blue"})), []string{"d02"}},
		{"$in dates", field("t", in(jan, date("2025-01-01T00:00:00Z"))), []string{"d01", "d03"}},
		{"$in nothing", field("n", in()), none},
		{"$nin", field("n", nin(int64(1), int64(2))), except("d01", "d02", "d05")},
		{"$nin on arrays", field("tags", nin("red")), except("d01", "d04", "d05")},
		{"$nin nothing", field("n", nin()), except()},
		{"$nin null", field("n", nin(nil)), except("d07", "d08")},
		{"$exists", field("f", query.Exists{Want: true}), []string{"d01", "d02", "d03"}},
		{"$exists with null", field("nul", query.Exists{Want: true}), []string{"d01", "d05"}},
		{"$exists false", field("f", query.Exists{Want: false}), except("d01", "d02", "d03")},
		{"$exists nested", field("sub.x", query.Exists{Want: true}), []string{"d01", "d02", "d03", "d10"}},
		{"$exists through an array", field("items.k", query.Exists{Want: true}), []string{"d01", "d02"}},
		{"$regex", field("s", regex("^app", "")), []string{"d01", "d05"}},
		{"$regex i", field("s", regex("^APP", "i")), []string{"d01", "d05"}},
		{"$regex end anchor", field("s", regex("rry$", "")), []string{"d03"}},
		{"$regex on arrays", field("tags", regex("^gr", "")), []string{"d01"}},
		{"$regex m", field("s", regex("^pie", "m")), []string{"d09"}},
		{"$regex without m", field("s", regex("^pie", "")), none},
		{"$regex s", field("s", regex("z.pie", "s")), []string{"d09"}},
		{"$regex without s", field("s", regex("z.pie", "")), none},
		{"$regex x", field("s", regex("ap ple # a comment", "x")), []string{"d01", "d05"}},
		{"$regex strings only", field("n", regex("1", "")), []string{"d06"}},
		{"$size", field("tags", query.Size{N: 1}), []string{"d02", "d04"}},
		{"$size 0", field("tags", query.Size{N: 0}), []string{"d03"}},
		{"$size of documents", field("items", query.Size{N: 2}), []string{"d01"}},
		{"$all", field("tags", query.All{Values: []any{"red", "green"}}), []string{"d01"}},
		{"$all of one, scalars too", field("tags", query.All{Values: []any{"red"}}), []string{"d01", "d04", "d05"}},
		{"$all of none", field("tags", query.All{Values: []any{}}), none},
		{"$elemMatch documents", field("items", query.ElemMatch{Expr: and(query.Eq("k", int64(1)), query.Eq("v", "a"))}), []string{"d01"}},
		{"$elemMatch needs one element", field("items", query.ElemMatch{Expr: and(query.Eq("k", int64(1)), query.Eq("v", "b"))}), none},
		{"dotted paths may match different elements", and(field("items.k", eq(int64(1))), field("items.v", eq("b"))), []string{"d01"}},
		{"$elemMatch condition", field("items", query.ElemMatch{Expr: field("k", gte(int64(2)))}), []string{"d01", "d02"}},
		{"$not", field("n", query.Not{Conds: []query.Cond{gt(int64(2))}}), except("d03", "d04", "d09")},
		{"$not $regex", field("s", query.Not{Conds: []query.Cond{regex("^a", "")}}), except("d01", "d05")},
		{"$not $exists", field("f", query.Not{Conds: []query.Cond{query.Exists{Want: true}}}), except("d01", "d02", "d03")},
		{"$or", or(field("n", eq(int64(1))), field("s", eq("date"))), []string{"d01", "d04", "d05"}},
		{"$and", and(field("n", gte(int64(1))), field("n", lte(int64(2)))), []string{"d01", "d02", "d05"}},
		{"$nor", nor(field("n", eq(int64(1))), field("tags", eq("red"))), except("d01", "d04", "d05")},
		{"nested logic", or(and(field("b", eq(true)), field("n", eq("1"))), field("sub.y", eq("b"))), []string{"d02", "d06"}},
		{"empty $and", and(), except()},
		{"no filter", nil, except()},
		{"_id $in", field("_id", in("d01", "d03", "nope")), []string{"d01", "d03"}},
		{"_id range", field("_id", gt("d08")), []string{"d09", "d10"}},
		{"_id $ne", field("_id", ne("d01")), except("d01")},
		{"_id is never a number", field("_id", gt(int64(0))), none},
	}
}

func testOperators(t *testing.T, s store.Store) {
	runOperatorCases(t, s.Collection("ops"))
}

// The same results when the fields are indexed.
func testOperatorsIndexed(t *testing.T, s store.Store) {
	var idx []store.Index
	for _, f := range []string{"n", "s", "t", "tags", "sub.x", "items.k", "b"} {
		idx = append(idx, store.Index{Name: "by_" + f, Keys: []store.SortField{{Field: f}}})
	}
	if err := s.EnsureIndexes(ctxA, "ops", true, idx); err != nil {
		t.Fatal(err)
	}
	runOperatorCases(t, s.Collection("ops"))
}

func runOperatorCases(t *testing.T, c store.Collection) {
	insert(t, ctxA, c, operatorDocs()...)
	// Another customer's identical-looking documents must never show up.
	insert(t, ctxB, c, store.Doc{"_id": "b01", "n": int64(1), "s": "apple", "tags": []any{"red"}})
	for _, tc := range operatorCases() {
		docs, err := c.Find(ctxA, store.FindOptions{Filter: tc.filter})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		want := append([]string{}, tc.want...)
		sort.Strings(want)
		if got := sortedIDs(docs); !equalStrings(got, want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, want)
		}
	}
	// Counts agree with finds (a few cases: FerretDB counts by scanning).
	for _, tc := range operatorCases()[:6] {
		n, err := c.Count(ctxA, tc.filter)
		if err != nil || n != int64(len(tc.want)) {
			t.Errorf("count %s = %d, %v; want %d", tc.name, n, err, len(tc.want))
		}
	}
}

// Arrays of arrays: an equality matches an element equal to the value, one
// level down only.
func testNestedArrays(t *testing.T, s store.Store) {
	c := s.Collection("nested")
	docs := []store.Doc{
		{"_id": "n1", "v": []any{[]any{"red"}, "x"}},
		{"_id": "n2", "v": []any{"red"}},
		{"_id": "n3", "v": []any{[]any{int64(1), 2.0}, []any{}, store.Doc{"a": []any{nil, true}}}},
		{"_id": "n4", "v": "red"},
	}
	insert(t, ctxA, c, docs...)
	for _, d := range docs {
		sameDoc(t, get(t, ctxA, c, d["_id"].(string)), d, "round trip")
	}
	cases := []operatorCase{
		{"element equal to an array", field("v", eq([]any{"red"})), []string{"n1", "n2"}},
		{"no match two levels down", field("v", eq("red")), []string{"n2", "n4"}},
		{"inner array", field("v", eq([]any{int64(1), int64(2)})), []string{"n3"}},
		{"empty inner array", field("v", eq([]any{})), []string{"n3"}},
		{"$size of the outer array", field("v", query.Size{N: 2}), []string{"n1"}},
		{"$elemMatch on inner arrays", field("v", query.ElemMatch{Conds: []query.Cond{query.Size{N: 1}}}), []string{"n1"}},
	}
	for _, tc := range cases {
		docs := find(t, ctxA, c, store.FindOptions{Filter: tc.filter})
		if got := sortedIDs(docs); !equalStrings(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
