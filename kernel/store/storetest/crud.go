package storetest

import (
	"testing"

	"platform/kernel/query"
	"platform/kernel/store"
)

func testCRUD(t *testing.T, s store.Store) {
	c := s.Collection("things")
	insert(t, ctxA, c, store.Doc{"_id": "t1", "name": "first", "n": int64(1), "nested": store.Doc{"ok": true}})
	want := store.Doc{"_id": "t1", "name": "first", "n": int64(1), "nested": store.Doc{"ok": true}}
	sameDoc(t, get(t, ctxA, c, "t1"), want, "get returns the document as inserted, without its customer")

	_, err := c.Get(ctxA, "nope")
	wantErr(t, err, store.ErrNotFound, "get of a missing id")

	err = c.Insert(ctxA, store.Doc{"_id": "t1", "name": "again"})
	wantDuplicate(t, err, []string{"_id"}, "insert of an existing _id")
	sameDoc(t, get(t, ctxA, c, "t1"), want, "a refused insert changes nothing")

	got, err := c.Get(ctxA, "t1", "name")
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, got, store.Doc{"_id": "t1", "name": "first"}, "get with fields")

	insert(t, ctxA, c, store.Doc{"_id": "t2", "name": "second", "n": int64(2)})
	if n := count(t, ctxA, c, nil); n != 2 {
		t.Errorf("count = %d, want 2", n)
	}
	docs := find(t, ctxA, c, store.FindOptions{Filter: query.Eq("name", "second")})
	if got := ids(docs); len(got) != 1 || got[0] != "t2" {
		t.Errorf("find name=second: %v", got)
	}
	if docs := find(t, ctxA, c, store.FindOptions{Filter: query.Eq("name", "none")}); docs == nil || len(docs) != 0 {
		t.Errorf("find with no match: %#v, want an empty, non-nil slice", docs)
	}
}

// A document inserted without an _id gets a new ObjectId-style string id,
// written into the caller's map, by which it can be read back.
func testInsertWithoutID(t *testing.T, s store.Store) {
	c := s.Collection("things")
	doc := store.Doc{"name": "no id"}
	insert(t, ctxA, c, doc)
	id, ok := doc["_id"].(string)
	if !ok || !store.ValidID(id) {
		t.Fatalf("after insert, doc _id = %#v, want a 24-hex string", doc["_id"])
	}
	sameDoc(t, get(t, ctxA, c, id), store.Doc{"_id": id, "name": "no id"}, "get by the assigned id")
}

func testInsertMany(t *testing.T, s store.Store) {
	c := s.Collection("things")
	err := c.InsertMany(ctxA, []store.Doc{{"_id": "m1", "i": int64(1)}, {"_id": "m2", "i": int64(2)}, {"_id": "m3", "i": int64(3)}})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, ctxA, c, nil); n != 3 {
		t.Errorf("count after InsertMany = %d, want 3", n)
	}
	if err := c.InsertMany(ctxA, nil); err != nil {
		t.Errorf("InsertMany of nothing: %v", err)
	}
	err = c.InsertMany(ctxA, []store.Doc{{"_id": "m4"}, {"_id": "m2"}})
	wantDuplicate(t, err, []string{"_id"}, "InsertMany with an existing _id")
	sameDoc(t, get(t, ctxA, c, "m2"), store.Doc{"_id": "m2", "i": int64(2)}, "the existing document is untouched")
}

func testUpdateOperators(t *testing.T, s store.Store) {
	c := s.Collection("things")
	insert(t, ctxA, c, store.Doc{
		"_id": "u1", "name": "x", "gone": "soon", "count": int64(5), "ratio": 1.5,
		"tags": []any{"a", "b", "a", "c"}, "log": []any{"x"}, "nums": []any{int64(1), 2.0, int64(3)},
		"sub": store.Doc{"keep": int64(1), "drop": int64(2)}, "arr": []any{int64(10), int64(20), int64(30)},
	})
	got, err := c.Update(ctxA, query.ID("u1"), store.Update{
		Set:   store.Doc{"name": "y", "new.deep.field": "made", "arr.1": int64(21), "when": date("2026-01-02T03:04:05.678Z")},
		Unset: []string{"gone", "sub.drop", "never.there"},
		Inc:   map[string]any{"count": int64(2), "ratio": int64(1), "fresh": int64(7), "fresh2": 0.5},
		Push:  map[string]any{"log": "d", "list": "first"},
		Pull:  map[string]any{"tags": "a", "nums": int64(2)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := store.Doc{
		"_id": "u1", "name": "y", "count": int64(7), "ratio": 2.5, "fresh": int64(7), "fresh2": 0.5,
		"tags": []any{"b", "c"}, "log": []any{"x", "d"}, "list": []any{"first"}, "nums": []any{int64(1), int64(3)},
		"sub": store.Doc{"keep": int64(1)}, "arr": []any{int64(10), int64(21), int64(30)},
		"new": store.Doc{"deep": store.Doc{"field": "made"}}, "when": date("2026-01-02T03:04:05.678Z"),
	}
	sameDoc(t, got, want, "update returns the document after the update")
	sameDoc(t, get(t, ctxA, c, "u1"), want, "get after update")

	got, err = c.Update(ctxA, query.ID("u1"), store.Update{Inc: map[string]any{"count": 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got["count"].(float64); !ok || v != 7.5 {
		t.Errorf("int64 + 0.5 = %#v, want float64 7.5", got["count"])
	}
	got, err = c.Update(ctxA, query.ID("u1"), store.Update{})
	if err != nil {
		t.Fatalf("empty update: %v", err)
	}
	if got["name"] != "y" {
		t.Errorf("an empty update returns the document: %v", got)
	}
}

func testUpdateErrors(t *testing.T, s store.Store) {
	c := s.Collection("things")
	insert(t, ctxA, c, store.Doc{"_id": "e1", "s": "text", "n": int64(1), "a": store.Doc{"b": int64(1)}})
	before := get(t, ctxA, c, "e1")
	bad := map[string]store.Update{
		"$inc on a string":            {Inc: map[string]any{"s": int64(1)}},
		"$push on a non-array":        {Push: map[string]any{"n": int64(1)}},
		"$pull on a non-array":        {Pull: map[string]any{"s": "t"}},
		"conflicting paths":           {Set: store.Doc{"a": int64(1)}, Inc: map[string]any{"a.b": int64(1)}},
		"the same path twice":         {Set: store.Doc{"n": int64(3)}, Unset: []string{"n"}},
		"a field inside a string":     {Set: store.Doc{"s.x": int64(1)}},
		"changing _id":                {Set: store.Doc{"_id": "other"}},
		"one bad op among good ones":  {Set: store.Doc{"ok": true}, Inc: map[string]any{"s": int64(1)}},
		"$inc by a non-number amount": {Inc: map[string]any{"n": "1"}},
	}
	for what, u := range bad {
		if _, err := c.Update(ctxA, query.ID("e1"), u); err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	sameDoc(t, get(t, ctxA, c, "e1"), before, "refused updates change nothing")
	_, err := c.Update(ctxA, query.ID("missing"), store.Update{Set: store.Doc{"x": int64(1)}})
	wantErr(t, err, store.ErrNotFound, "update of a missing document")
}

func testConditionalUpdate(t *testing.T, s store.Store) {
	c := s.Collection("coupons")
	insert(t, ctxA, c, store.Doc{"_id": "c1", "left": int64(1), "code": "X"})
	cond := and(query.ID("c1"), field("left", gt(int64(0))))
	got, err := c.Update(ctxA, cond, store.Update{Inc: map[string]any{"left": int64(-1)}})
	if err != nil {
		t.Fatal(err)
	}
	if got["left"] != int64(0) {
		t.Errorf("left = %#v, want 0", got["left"])
	}
	_, err = c.Update(ctxA, cond, store.Update{Inc: map[string]any{"left": int64(-1)}})
	wantErr(t, err, store.ErrNotFound, "conditional update whose condition fails")
	if v := get(t, ctxA, c, "c1")["left"]; v != int64(0) {
		t.Errorf("left = %#v after a failed condition, want 0", v)
	}
	// Without _id, the first matching document in natural order is updated.
	insert(t, ctxA, c, store.Doc{"_id": "c2", "code": "Y", "used": false})
	got, err = c.Update(ctxA, and(field("code", eq("Y")), field("used", eq(false))), store.Update{Set: store.Doc{"used": true}})
	if err != nil || got["_id"] != "c2" || got["used"] != true {
		t.Errorf("single-use code: %v %v", got, err)
	}
	_, err = c.Update(ctxA, and(field("code", eq("Y")), field("used", eq(false))), store.Update{Set: store.Doc{"used": true}})
	wantErr(t, err, store.ErrNotFound, "second use of a single-use code")
}

func testUpsert(t *testing.T, s store.Store) {
	c := s.Collection("counters")
	u := store.Update{
		Set:         store.Doc{"last": "a"},
		Inc:         map[string]any{"n": int64(1)},
		SetOnInsert: store.Doc{"created": date("2026-03-04T05:06:07.000Z")},
	}
	got, err := c.Upsert(ctxA, "k1", u)
	if err != nil {
		t.Fatal(err)
	}
	want := store.Doc{"_id": "k1", "last": "a", "n": int64(1), "created": date("2026-03-04T05:06:07.000Z")}
	sameDoc(t, got, want, "upsert that inserts")
	u.Set = store.Doc{"last": "b"}
	u.SetOnInsert = store.Doc{"created": date("2030-01-01T00:00:00.000Z")}
	got, err = c.Upsert(ctxA, "k1", u)
	if err != nil {
		t.Fatal(err)
	}
	want = store.Doc{"_id": "k1", "last": "b", "n": int64(2), "created": date("2026-03-04T05:06:07.000Z")}
	sameDoc(t, got, want, "upsert that updates ignores SetOnInsert")
	sameDoc(t, get(t, ctxA, c, "k1"), want, "get after upserts")

	got, err = c.Upsert(ctxA, "k2", store.Update{Push: map[string]any{"log": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, got, store.Doc{"_id": "k2", "log": []any{"x"}}, "upsert with $push only")
}

func testUpdateMany(t *testing.T, s store.Store) {
	c := s.Collection("things")
	for i, g := range []string{"a", "b", "a", "a", "b"} {
		insert(t, ctxA, c, store.Doc{"_id": string(rune('p' + i)), "g": g, "n": int64(i)})
	}
	insert(t, ctxB, c, store.Doc{"_id": "other", "g": "a", "n": int64(0)})
	n, err := c.UpdateMany(ctxA, field("g", eq("a")), store.Update{Set: store.Doc{"seen": true}, Inc: map[string]any{"n": int64(10)}})
	if err != nil || n != 3 {
		t.Fatalf("UpdateMany = %d, %v; want 3", n, err)
	}
	docs := find(t, ctxA, c, store.FindOptions{Filter: field("seen", eq(true)), Sort: []store.SortField{{Field: "_id"}}})
	if got := ids(docs); !equalStrings(got, []string{"p", "r", "s"}) {
		t.Errorf("updated: %v", got)
	}
	if docs[1]["n"] != int64(12) {
		t.Errorf("n of r = %#v, want 12", docs[1]["n"])
	}
	if v := get(t, ctxB, c, "other")["seen"]; v != nil {
		t.Errorf("another customer's document was updated")
	}
	n, err = c.UpdateMany(ctxA, field("g", eq("zzz")), store.Update{Set: store.Doc{"x": int64(1)}})
	if err != nil || n != 0 {
		t.Errorf("UpdateMany without match = %d, %v", n, err)
	}
}

func testReplace(t *testing.T, s store.Store) {
	c := s.Collection("things")
	insert(t, ctxA, c, store.Doc{"_id": "r1", "old": true, "n": int64(1)})
	if err := c.Replace(ctxA, "r1", store.Doc{"fresh": "yes"}); err != nil {
		t.Fatal(err)
	}
	sameDoc(t, get(t, ctxA, c, "r1"), store.Doc{"_id": "r1", "fresh": "yes"}, "replaced")
	if err := c.Replace(ctxA, "r1", store.Doc{"_id": "r1", "again": int64(2)}); err != nil {
		t.Fatal(err)
	}
	sameDoc(t, get(t, ctxA, c, "r1"), store.Doc{"_id": "r1", "again": int64(2)}, "replaced with its _id")
	wantErr(t, c.Replace(ctxA, "r9", store.Doc{"x": int64(1)}), store.ErrNotFound, "replace of a missing id")
	if n := count(t, ctxA, c, nil); n != 1 {
		t.Errorf("replace of a missing id must not insert: count %d", n)
	}
}

func testDelete(t *testing.T, s store.Store) {
	c := s.Collection("things")
	for i := range 5 {
		insert(t, ctxA, c, store.Doc{"_id": string(rune('a' + i)), "n": int64(i)})
	}
	insert(t, ctxB, c, store.Doc{"_id": "z", "n": int64(0)})
	n, err := c.Delete(ctxA, field("n", lt(int64(2))))
	if err != nil || n != 2 {
		t.Fatalf("delete n<2 = %d, %v; want 2", n, err)
	}
	_, err = c.Get(ctxA, "a")
	wantErr(t, err, store.ErrNotFound, "get after delete")
	n, err = c.Delete(ctxA, query.ID("a"))
	if err != nil || n != 0 {
		t.Errorf("second delete = %d, %v; want 0", n, err)
	}
	n, err = c.Delete(ctxA, nil)
	if err != nil || n != 3 {
		t.Errorf("delete all = %d, %v; want 3", n, err)
	}
	if n := count(t, ctxB, c, nil); n != 1 {
		t.Errorf("another customer's documents were deleted: %d left", n)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
