package testenv

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/kernel/store/sqlitestore"
)

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

// apiClient keeps connections alive for many concurrent callers, as real
// API clients do (the default keeps only 2 idle connections per host).
var apiClient = &http.Client{Transport: &http.Transport{
	MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 90 * time.Second,
}}
