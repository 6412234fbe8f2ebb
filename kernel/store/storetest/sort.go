package storetest

import (
	"fmt"
	"testing"

	"platform/kernel/store"
)

func asc(f string) store.SortField  { return store.SortField{Field: f} }
func desc(f string) store.SortField { return store.SortField{Field: f, Desc: true} }

func sortedFind(t *testing.T, c store.Collection, sort ...store.SortField) []string {
	t.Helper()
	return ids(find(t, ctxA, c, store.FindOptions{Sort: sort}))
}

func wantOrder(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !equalStrings(got, want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

func testSort(t *testing.T, s store.Store) {
	if err := s.EnsureIndexes(ctxA, "sorting", true, []store.Index{
		{Name: "by_rank", Keys: []store.SortField{{Field: "rank"}}},
		{Name: "by_name_rank", Keys: []store.SortField{{Field: "name"}, {Field: "rank", Desc: true}}},
	}); err != nil {
		t.Fatal(err)
	}
	c := s.Collection("sorting")
	t1, t3 := date("2024-01-01T00:00:00Z"), date("2024-03-01T00:00:00Z")
	insert(t, ctxA, c,
		store.Doc{"_id": "s1", "name": "b", "rank": int64(2), "when": t1},
		store.Doc{"_id": "s2", "name": "a", "rank": 1.5, "when": t3},
		store.Doc{"_id": "s3", "name": "c", "rank": nil},
		store.Doc{"_id": "s4", "name": "a", "rank": int64(3)},
		store.Doc{"_id": "s5", "rank": int64(2)},
		store.Doc{"_id": "s6", "name": "B", "rank": int64(-1), "sub": store.Doc{"k": int64(2)}},
	)
	insert(t, ctxB, c, store.Doc{"_id": "s0", "name": "0", "rank": int64(0)})
	wantOrder(t, "name, rank (missing first, bytewise)", sortedFind(t, c, asc("name"), asc("rank")), "s5", "s6", "s2", "s4", "s1", "s3")
	wantOrder(t, "name desc, rank desc", sortedFind(t, c, desc("name"), desc("rank")), "s3", "s1", "s4", "s2", "s6", "s5")
	wantOrder(t, "name, rank desc (the index's order)", sortedFind(t, c, asc("name"), desc("rank")), "s5", "s6", "s4", "s2", "s1", "s3")
	wantOrder(t, "rank (null first, int and float together)", sortedFind(t, c, asc("rank"), asc("_id")), "s3", "s6", "s2", "s1", "s5", "s4")
	wantOrder(t, "rank desc", sortedFind(t, c, desc("rank"), asc("_id")), "s4", "s1", "s5", "s2", "s6", "s3")
	wantOrder(t, "dates, missing first", sortedFind(t, c, asc("when"), asc("_id")), "s3", "s4", "s5", "s6", "s1", "s2")
	wantOrder(t, "dates desc, missing last", sortedFind(t, c, desc("when"), asc("_id")), "s2", "s1", "s3", "s4", "s5", "s6")
	wantOrder(t, "nested field", sortedFind(t, c, desc("sub.k"), asc("_id")), "s6", "s1", "s2", "s3", "s4", "s5")
	wantOrder(t, "_id desc", sortedFind(t, c, desc("_id")), "s6", "s5", "s4", "s3", "s2", "s1")
	docs := find(t, ctxA, c, store.FindOptions{Filter: field("rank", gte(int64(2))), Sort: []store.SortField{desc("rank"), desc("_id")}, Limit: 2})
	wantOrder(t, "filtered, sorted, limited", ids(docs), "s4", "s5")
}

// MongoDB's order across types: null and missing, numbers, strings,
// documents, booleans, dates.
func testSortMixedTypes(t *testing.T, s store.Store) {
	c := s.Collection("mixed")
	insert(t, ctxA, c,
		store.Doc{"_id": "m1", "v": "str"},
		store.Doc{"_id": "m2", "v": int64(5)},
		store.Doc{"_id": "m3", "v": true},
		store.Doc{"_id": "m4", "v": date("2020-01-01T00:00:00Z")},
		store.Doc{"_id": "m5", "v": nil},
		store.Doc{"_id": "m6", "v": store.Doc{"a": int64(1)}},
		store.Doc{"_id": "m7"},
		store.Doc{"_id": "m8", "v": false},
		store.Doc{"_id": "m9", "v": -2.5},
	)
	wantOrder(t, "ascending", sortedFind(t, c, asc("v"), asc("_id")), "m5", "m7", "m9", "m2", "m1", "m6", "m8", "m3", "m4")
	wantOrder(t, "descending", sortedFind(t, c, desc("v"), asc("_id")), "m4", "m3", "m8", "m6", "m1", "m2", "m9", "m5", "m7")
}

// An array sorts by its smallest element ascending and its largest
// descending; an empty array before null and missing.
func testSortArrays(t *testing.T, s store.Store) {
	c := s.Collection("arrays")
	insert(t, ctxA, c,
		store.Doc{"_id": "a1", "v": []any{int64(3), int64(1)}},
		store.Doc{"_id": "a2", "v": int64(2)},
		store.Doc{"_id": "a3", "v": []any{int64(5)}},
		store.Doc{"_id": "a4", "v": []any{}},
		store.Doc{"_id": "a5"},
		store.Doc{"_id": "a6", "v": []any{store.Doc{"k": int64(4)}, store.Doc{"k": int64(0)}}},
	)
	wantOrder(t, "ascending", sortedFind(t, c, asc("v"), asc("_id")), "a4", "a5", "a1", "a2", "a3", "a6")
	wantOrder(t, "descending", sortedFind(t, c, desc("v"), asc("_id")), "a6", "a3", "a1", "a2", "a5", "a4")
	docs := find(t, ctxA, c, store.FindOptions{Filter: field("_id", ne("a4")), Sort: []store.SortField{asc("v.k"), asc("_id")}})
	wantOrder(t, "through an array of documents", ids(docs), "a1", "a2", "a3", "a5", "a6")
}

func testPagination(t *testing.T, s store.Store) {
	c := s.Collection("pages")
	var all []string
	for i := range 30 {
		id := fmt.Sprintf("p%02d", i)
		all = append(all, id)
		// seq runs backwards so that sorted order is not insertion order.
		insert(t, ctxA, c, store.Doc{"_id": id, "seq": int64(29 - i), "odd": i%2 == 1})
	}
	page := func(skip, limit int64) []string {
		return ids(find(t, ctxA, c, store.FindOptions{Sort: []store.SortField{desc("seq")}, Skip: skip, Limit: limit}))
	}
	wantOrder(t, "first page", page(0, 10), all[:10]...)
	wantOrder(t, "last partial page", page(25, 10), all[25:]...)
	wantOrder(t, "skip to the end", page(30, 10))
	wantOrder(t, "skip past the end", page(100, 10))
	wantOrder(t, "limit 0 is no limit", page(0, 0), all...)
	wantOrder(t, "skip without limit", page(27, 0), all[27:]...)
	wantOrder(t, "limit 1", page(3, 1), all[3])

	// Natural order pages are stable and cover everything once.
	seen := map[string]int{}
	for skip := int64(0); skip < 30; skip += 7 {
		docs := find(t, ctxA, c, store.FindOptions{Skip: skip, Limit: 7})
		for _, id := range ids(docs) {
			seen[id]++
		}
	}
	if len(seen) != 30 {
		t.Errorf("natural-order pages saw %d documents, want 30", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("natural-order pages returned %s %d times", id, n)
		}
	}
	filtered := find(t, ctxA, c, store.FindOptions{Filter: field("odd", eq(true)), Sort: []store.SortField{asc("seq")}, Skip: 2, Limit: 3})
	wantOrder(t, "filtered page", ids(filtered), "p25", "p23", "p21")
	if n := count(t, ctxA, c, field("odd", eq(true))); n != 15 {
		t.Errorf("count of a filter = %d, want 15", n)
	}
}

func testProjection(t *testing.T, s store.Store) {
	c := s.Collection("proj")
	insert(t, ctxA, c, store.Doc{
		"_id": "x", "a": int64(1), "b": store.Doc{"c": int64(2), "d": int64(3)},
		"e": []any{store.Doc{"f": int64(1), "g": int64(2)}, store.Doc{"f": int64(3), "g": int64(4)}}, "h": "text",
	})
	cases := []struct {
		fields []string
		want   store.Doc
	}{
		{[]string{"a"}, store.Doc{"_id": "x", "a": int64(1)}},
		{[]string{"b.c"}, store.Doc{"_id": "x", "b": store.Doc{"c": int64(2)}}},
		{[]string{"b.c", "h"}, store.Doc{"_id": "x", "b": store.Doc{"c": int64(2)}, "h": "text"}},
		{[]string{"b"}, store.Doc{"_id": "x", "b": store.Doc{"c": int64(2), "d": int64(3)}}},
		{[]string{"e.f"}, store.Doc{"_id": "x", "e": []any{store.Doc{"f": int64(1)}, store.Doc{"f": int64(3)}}}},
		{[]string{"missing"}, store.Doc{"_id": "x"}},
		{[]string{"_id"}, store.Doc{"_id": "x"}},
	}
	for _, tc := range cases {
		docs := find(t, ctxA, c, store.FindOptions{Fields: tc.fields})
		if len(docs) != 1 {
			t.Fatalf("find: %d documents", len(docs))
		}
		sameDoc(t, docs[0], tc.want, fmt.Sprintf("find with fields %v", tc.fields))
		got, err := c.Get(ctxA, "x", tc.fields...)
		if err != nil {
			t.Fatal(err)
		}
		sameDoc(t, got, tc.want, fmt.Sprintf("get with fields %v", tc.fields))
	}
}
