package testenv

import (
	"net/http"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/store/sqlitestore"
	"platform/test/infra"
)

// Race reports whether the binary runs under the race detector (infra.Race).
const Race = infra.Race

// Addresses of the shared infrastructure (infra.Addresses).
type Addresses = infra.Addresses

// Infra returns the store and Temporal addresses (infra.Infra).
func Infra(t testing.TB) Addresses { return infra.Infra(t) }

// ModuleRoot is the directory of go.mod (infra.ModuleRoot).
func ModuleRoot() (string, error) { return infra.ModuleRoot() }

// PlatformBinary is the built bin/platform (infra.PlatformBinary).
func PlatformBinary() (string, error) { return infra.PlatformBinary() }

// Name returns a short unique name for the test (infra.Name).
func Name(t testing.TB) string { return infra.Name(t) }

// StoreKind names the store tests run on (infra.StoreKind).
func StoreKind(want string) string { return infra.StoreKind(want) }

// NewStore returns a fresh store of the kind for the test (infra.NewStore).
func NewStore(t testing.TB, kind string) store.Store { return infra.NewStore(t, kind) }

// SQLiteStore returns an embedded store for the test (infra.SQLiteStore).
func SQLiteStore(t testing.TB) *sqlitestore.Store { return infra.SQLiteStore(t) }

// MongoStore returns a store on a fresh database of the shared server
// (infra.MongoStore).
func MongoStore(t testing.TB) *mongostore.Store { return infra.MongoStore(t) }

// apiClient keeps connections alive for many concurrent callers, as real
// API clients do (the default keeps only 2 idle connections per host).
var apiClient = &http.Client{Transport: &http.Transport{
	MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 90 * time.Second,
}}
