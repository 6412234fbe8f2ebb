package storetest

import (
	"fmt"
	"sync"
	"testing"

	"platform/kernel/query"
	"platform/kernel/store"
)

func uniqueEmail(t *testing.T, s store.Store) store.Collection {
	t.Helper()
	idx := []store.Index{{Name: "email", Keys: []store.SortField{{Field: "email"}}, Unique: true}}
	for range 2 { // declaring again changes nothing
		if err := s.EnsureIndexes(ctxA, "users", true, idx); err != nil {
			t.Fatal(err)
		}
	}
	return s.Collection("users")
}

func testUniquePerCustomer(t *testing.T, s store.Store) {
	c := uniqueEmail(t, s)
	insert(t, ctxA, c, store.Doc{"_id": "a1", "email": "x@example.com"})
	insert(t, ctxB, c, store.Doc{"_id": "b1", "email": "x@example.com"}) // another customer: allowed
	err := c.Insert(ctxA, store.Doc{"_id": "a2", "email": "x@example.com"})
	wantDuplicate(t, err, []string{"email"}, "same email, same customer")
	if !store.IsDuplicate(err) {
		t.Errorf("IsDuplicate(%v) = false", err)
	}

	insert(t, ctxA, c, store.Doc{"_id": "a3", "email": "y@example.com"})
	_, err = c.Update(ctxA, query.ID("a3"), store.Update{Set: store.Doc{"email": "x@example.com"}})
	wantDuplicate(t, err, []string{"email"}, "update to a taken email")
	if v := get(t, ctxA, c, "a3")["email"]; v != "y@example.com" {
		t.Errorf("a refused update changed the email to %v", v)
	}
	err = c.Replace(ctxA, "a3", store.Doc{"email": "x@example.com"})
	wantDuplicate(t, err, []string{"email"}, "replace with a taken email")
	_, err = c.Upsert(ctxA, "a4", store.Update{SetOnInsert: store.Doc{"email": "x@example.com"}})
	wantDuplicate(t, err, []string{"email"}, "upsert inserting a taken email")
	_, err = c.Get(ctxA, "a4")
	wantErr(t, err, store.ErrNotFound, "the refused upsert inserted nothing")

	// Freed values can be taken again.
	if _, err := c.Delete(ctxA, query.ID("a1")); err != nil {
		t.Fatal(err)
	}
	insert(t, ctxA, c, store.Doc{"_id": "a5", "email": "x@example.com"})
}

// MongoDB indexes a missing field as null: a unique index allows one
// document without the field per customer.
func testUniqueMissingField(t *testing.T, s store.Store) {
	c := uniqueEmail(t, s)
	insert(t, ctxA, c, store.Doc{"_id": "a1", "name": "no email"})
	insert(t, ctxB, c, store.Doc{"_id": "b1", "name": "no email either"})
	err := c.Insert(ctxA, store.Doc{"_id": "a2", "name": "no email, again"})
	wantDuplicate(t, err, []string{"email"}, "a second document without the unique field")
}

// A sparse unique index ignores documents without the field.
func testUniqueSparse(t *testing.T, s store.Store) {
	idx := []store.Index{{Name: "slug", Keys: []store.SortField{{Field: "slug"}}, Unique: true, Sparse: true}}
	if err := s.EnsureIndexes(ctxA, "pages", true, idx); err != nil {
		t.Fatal(err)
	}
	c := s.Collection("pages")
	insert(t, ctxA, c, store.Doc{"_id": "p1"}, store.Doc{"_id": "p2"}, store.Doc{"_id": "p3", "slug": "home"})
	err := c.Insert(ctxA, store.Doc{"_id": "p4", "slug": "home"})
	wantDuplicate(t, err, []string{"slug"}, "same slug")
	docs := find(t, ctxA, c, store.FindOptions{Filter: field("slug", eq("home"))})
	wantOrder(t, "find by the sparse field", ids(docs), "p3")
}

func testUniqueCompound(t *testing.T, s store.Store) {
	idx := []store.Index{{Name: "pair", Keys: []store.SortField{{Field: "a"}, {Field: "b"}}, Unique: true}}
	if err := s.EnsureIndexes(ctxA, "pairs", true, idx); err != nil {
		t.Fatal(err)
	}
	c := s.Collection("pairs")
	insert(t, ctxA, c,
		store.Doc{"_id": "1", "a": int64(1), "b": "x"},
		store.Doc{"_id": "2", "a": int64(1), "b": "y"},
		store.Doc{"_id": "3", "a": int64(2), "b": "x"},
	)
	err := c.Insert(ctxA, store.Doc{"_id": "4", "a": 1.0, "b": "x"})
	wantDuplicate(t, err, []string{"a", "b"}, "same pair (1.0 equals 1)")
}

// Of 20 concurrent inserts of one value, exactly one wins.
func testUniqueConcurrentInserts(t *testing.T, s store.Store) {
	c := uniqueEmail(t, s)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Insert(ctxA, store.Doc{"_id": fmt.Sprintf("c%02d", i), "email": "race@example.com"})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !store.IsDuplicate(err):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d inserts won, want exactly 1", won)
	}
	if n := count(t, ctxA, c, field("email", eq("race@example.com"))); n != 1 {
		t.Errorf("%d documents hold the value, want 1", n)
	}
}
