package infra

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/store/sqlitestore"
)

// Name returns a short unique name for the test (database, task queue).
func Name(t testing.TB) string {
	n := strings.NewReplacer("/", "_", " ", "_", ".", "_").Replace(t.Name())
	if len(n) > 30 {
		n = n[:30]
	}
	return "t_" + n + "_" + store.NewID()[16:]
}

// StoreKind names the store tests run on: "mongodb" (the MongoDB-wire
// server, default) or "sqlite" (the embedded store), from
// PLATFORM_TEST_STORE unless a test asks for one.
func StoreKind(want string) string {
	if want != "" {
		return want
	}
	if k := os.Getenv("PLATFORM_TEST_STORE"); k != "" {
		return k
	}
	return "mongodb"
}

// NewStore returns a fresh store of the kind for the test.
func NewStore(t testing.TB, kind string) store.Store {
	t.Helper()
	if StoreKind(kind) == "sqlite" {
		return SQLiteStore(t)
	}
	return MongoStore(t)
}

// SQLiteStore returns an embedded store in the test's temporary directory.
func SQLiteStore(t testing.TB) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatalf("open sqlite store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	return st
}

// MongoStore returns a store on a fresh database of the shared server,
// dropped when the test ends.
func MongoStore(t testing.TB) *mongostore.Store {
	t.Helper()
	a := Infra(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := mongostore.Open(ctx, a.MongoURI, Name(t))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = st.DropDatabase(ctx)
		_ = st.Close(ctx)
	})
	return st
}
