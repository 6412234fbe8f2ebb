package sqlitestore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"platform/kernel/store"
	"platform/kernel/tenant"
)

var ctxB = tenant.WithCustomer(context.Background(), "customer-b")

func seedCounted(t *testing.T, s *Store, ctx context.Context, n int) {
	t.Helper()
	docs := make([]store.Doc, n)
	for i := range docs {
		docs[i] = store.Doc{"_id": store.NewID(), "i": int64(i)}
	}
	if err := s.Collection("people").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
}

func wantCount(t *testing.T, s *Store, ctx context.Context, want int64, what string) {
	t.Helper()
	n, err := s.Collection("people").CountAll(ctx)
	if err != nil || n != want {
		t.Errorf("%s: CountAll = %d, %v; want %d", what, n, err, want)
	}
}

// A file written before the store kept counts (no counts, no record of
// counting) gets them counted when the collection is first opened.
func TestCountsOfAnOlderFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	seedCounted(t, s, ctxA, 5)
	seedCounted(t, s, ctxB, 2)
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TABLE platform_counts; DROP TABLE platform_counted`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s = openAt(t, path)
	wantCount(t, s, ctxA, 5, "A after reopening")
	wantCount(t, s, ctxB, 2, "B after reopening")
	seedCounted(t, s, ctxA, 1)
	wantCount(t, s, ctxA, 6, "A after one more")
}

// Recount finds and rewrites a count edited by hand, and only that one.
func TestRecount(t *testing.T) {
	s := openTemp(t)
	seedCounted(t, s, ctxA, 4)
	seedCounted(t, s, ctxB, 3)
	if n, err := s.Recount(ctxA); err != nil || n != 0 {
		t.Fatalf("Recount of exact counts: %d, %v", n, err)
	}
	err := s.write(context.Background(), nil, func(w *writeTx) error {
		_, err := w.exec(`UPDATE platform_counts SET n = 99 WHERE customer = 'customer-a'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	wantCount(t, s, ctxA, 99, "A edited by hand")
	if n, err := s.Recount(context.Background()); err != nil || n != 1 {
		t.Fatalf("Recount: %d, %v; want 1 changed", n, err)
	}
	wantCount(t, s, ctxA, 4, "A repaired")
	wantCount(t, s, ctxB, 3, "B untouched")
}

// CountAll reads one row: its plan uses the counts' primary key.
func TestCountAllPlan(t *testing.T) {
	s := openTemp(t)
	seedCounted(t, s, ctxA, 1)
	plan := explain(t, s, `SELECT n FROM platform_counts WHERE collection = ? AND customer = ?`, "people", "customer-a")
	if want := "SEARCH platform_counts USING PRIMARY KEY (collection=? AND customer=?)"; plan != want {
		t.Errorf("plan %q, want %q", plan, want)
	}
}
