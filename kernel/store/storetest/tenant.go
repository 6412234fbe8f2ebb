package storetest

import (
	"context"
	"testing"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

func testTenantIsolation(t *testing.T, s store.Store) {
	c := s.Collection("secrets")
	insert(t, ctxA, c, store.Doc{"_id": "sa", "v": int64(1), "tag": "t"})
	insert(t, ctxB, c, store.Doc{"_id": "sb", "v": int64(2), "tag": "t"})

	_, err := c.Get(ctxB, "sa")
	wantErr(t, err, store.ErrNotFound, "B gets A's document")
	if docs := find(t, ctxB, c, store.FindOptions{Filter: field("tag", eq("t"))}); !equalStrings(ids(docs), []string{"sb"}) {
		t.Errorf("B finds %v", ids(docs))
	}
	if docs := find(t, ctxB, c, store.FindOptions{Filter: query.ID("sa")}); len(docs) != 0 {
		t.Errorf("B finds A's document by id")
	}
	if n := count(t, ctxB, c, nil); n != 1 {
		t.Errorf("B counts %d", n)
	}
	_, err = c.Update(ctxB, query.ID("sa"), store.Update{Set: store.Doc{"v": int64(99)}})
	wantErr(t, err, store.ErrNotFound, "B updates A's document")
	if n, err := c.UpdateMany(ctxB, query.ID("sa"), store.Update{Set: store.Doc{"v": int64(99)}}); n != 0 || err != nil {
		t.Errorf("B's UpdateMany of A's document: %d, %v", n, err)
	}
	wantErr(t, c.Replace(ctxB, "sa", store.Doc{"v": int64(99)}), store.ErrNotFound, "B replaces A's document")
	if n, err := c.Delete(ctxB, query.ID("sa")); n != 0 || err != nil {
		t.Errorf("B's delete of A's document: %d, %v", n, err)
	}
	sameDoc(t, get(t, ctxA, c, "sa"), store.Doc{"_id": "sa", "v": int64(1), "tag": "t"}, "A's document after B's attempts")

	if n, err := c.Delete(ctxB, nil); n != 1 || err != nil {
		t.Errorf("B's delete of everything: %d, %v; want 1", n, err)
	}
	if n := count(t, ctxA, c, nil); n != 1 {
		t.Errorf("A has %d documents after B deleted its own, want 1", n)
	}
}

// _id is unique per collection across customers, as MongoDB's _id index
// is: another customer cannot take or shadow an id.
func testTenantIDsShareOneSpace(t *testing.T, s store.Store) {
	c := s.Collection("secrets")
	insert(t, ctxA, c, store.Doc{"_id": "shared", "owner": "a"})
	wantDuplicate(t, c.Insert(ctxB, store.Doc{"_id": "shared", "owner": "b"}), []string{"_id"}, "B inserts A's id")
	_, err := c.Upsert(ctxB, "shared", store.Update{Set: store.Doc{"owner": "b"}})
	wantDuplicate(t, err, []string{"_id"}, "B upserts A's id")
	sameDoc(t, get(t, ctxA, c, "shared"), store.Doc{"_id": "shared", "owner": "a"}, "A's document")
	_, err = c.Get(ctxB, "shared")
	wantErr(t, err, store.ErrNotFound, "B gets the shared id")
}

// No write can move a document to another customer.
func testTenantCannotBeChanged(t *testing.T, s store.Store) {
	c := s.Collection("secrets")
	insert(t, ctxA, c, store.Doc{"_id": "mine", "customer": "customer-b", "v": int64(1)})
	_, _ = c.Update(ctxA, query.ID("mine"), store.Update{Set: store.Doc{store.CustomerField: "customer-b"}})
	_, _ = c.Upsert(ctxA, "mine", store.Update{Set: store.Doc{store.CustomerField: "customer-b"}})
	_ = c.Replace(ctxA, "mine", store.Doc{store.CustomerField: "customer-b", "v": int64(2)})
	_, _ = c.UpdateMany(ctxA, nil, store.Update{Set: store.Doc{store.CustomerField: "customer-b"}})
	if _, err := c.Get(ctxA, "mine"); err != nil {
		t.Errorf("A lost its document: %v", err)
	}
	if _, err := c.Get(ctxB, "mine"); err == nil {
		t.Errorf("A's document moved to customer B")
	}
	if n := count(t, ctxB, c, nil); n != 0 {
		t.Errorf("B sees %d documents", n)
	}
}

func testMissingTenant(t *testing.T, s store.Store) {
	c := s.Collection("secrets")
	insert(t, ctxA, c, store.Doc{"_id": "x"})
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		wantErr(t, err, tenant.ErrMissing, what)
	}
	check("insert", c.Insert(ctx, store.Doc{"_id": "y"}))
	check("insert many", c.InsertMany(ctx, []store.Doc{{"_id": "y"}}))
	_, err := c.Get(ctx, "x")
	check("get", err)
	_, err = c.Find(ctx, store.FindOptions{})
	check("find", err)
	_, err = c.Count(ctx, nil)
	check("count", err)
	_, err = c.Update(ctx, query.ID("x"), store.Update{Set: store.Doc{"v": int64(1)}})
	check("update", err)
	_, err = c.Upsert(ctx, "x", store.Update{Set: store.Doc{"v": int64(1)}})
	check("upsert", err)
	_, err = c.UpdateMany(ctx, nil, store.Update{Set: store.Doc{"v": int64(1)}})
	check("update many", err)
	check("replace", c.Replace(ctx, "x", store.Doc{}))
	_, err = c.Delete(ctx, nil)
	check("delete", err)
	sameDoc(t, get(t, ctxA, c, "x"), store.Doc{"_id": "x"}, "the document after calls without a customer")
}

func testGlobal(t *testing.T, s store.Store) {
	idx := []store.Index{{Name: "domain", Keys: []store.SortField{{Field: "domain"}}, Unique: true}}
	if err := s.EnsureIndexes(context.Background(), "customers", false, idx); err != nil {
		t.Fatal(err)
	}
	g := s.Global("customers")
	ctx := context.Background()
	insert(t, ctx, g,
		store.Doc{"_id": "c1", "customer": "c1", "domain": "a.example"},
		store.Doc{"_id": "c2", "customer": "c2", "domain": "b.example"},
	)
	sameDoc(t, get(t, ctx, g, "c1"), store.Doc{"_id": "c1", "customer": "c1", "domain": "a.example"}, "global get keeps a customer field")
	wantDuplicate(t, g.Insert(ctx, store.Doc{"_id": "c3", "domain": "a.example"}), []string{"domain"}, "globally unique")
	docs := find(t, ctxA, g, store.FindOptions{Filter: field("customer", eq("c2"))})
	wantOrder(t, "global find ignores the caller's customer", ids(docs), "c2")
	if _, err := g.Update(ctx, query.ID("c2"), store.Update{Set: store.Doc{"domain": "c.example"}}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, ctx, g, nil); n != 2 {
		t.Errorf("global count %d", n)
	}
	if n, err := g.Delete(ctx, query.ID("c1")); n != 1 || err != nil {
		t.Errorf("global delete %d, %v", n, err)
	}
}
