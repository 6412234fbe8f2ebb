package oauth

import (
	"context"
	"errors"
	"sync"
	"time"

	"platform/kernel/store"
)

// RevocationList is auth.RevocationList over the access-token records: a
// token is revoked when its record says so. Tokens without a record (minted
// by `platform token` or tests) are never revoked.
//
// Cost and consistency: every check reads the record by _id, except that a
// "not revoked" answer is cached for NegativeTTL (default 1 s) to spare the
// store under load. Positive answers are cached until the token expires
// (revocation is final). A revocation made on this replica drops the cache
// entry at once; on another replica it takes effect within NegativeTTL.
// NegativeTTL 0 checks the store for every request.
type RevocationList struct {
	Store       store.Store
	NegativeTTL time.Duration
	MaxEntries  int // cache bound; default 100,000

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	revoked bool
	until   time.Time
}

// NewRevocationList returns the list with the default 1 s negative cache.
func NewRevocationList(st store.Store) *RevocationList {
	return &RevocationList{Store: st, NegativeTTL: time.Second, MaxEntries: 100_000, entries: map[string]cacheEntry{}}
}

// Revoked implements auth.RevocationList.
func (l *RevocationList) Revoked(ctx context.Context, jti string) (bool, error) {
	if e, ok := l.cached(jti); ok {
		return e, nil
	}
	d, err := l.Store.Global(AccessCollection).Get(ctx, jti, "revoked", "expiresAt")
	if errors.Is(err, store.ErrNotFound) {
		l.remember(jti, false, time.Now().Add(l.NegativeTTL))
		return false, nil
	}
	if err != nil {
		return false, err
	}
	revoked, _ := d["revoked"].(bool)
	if revoked {
		exp, _ := d["expiresAt"].(time.Time)
		l.remember(jti, true, exp)
	} else {
		l.remember(jti, false, time.Now().Add(l.NegativeTTL))
	}
	return revoked, nil
}

func (l *RevocationList) cached(jti string) (bool, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.entries[jti]
	if !ok || time.Now().After(e.until) {
		return false, false
	}
	return e.revoked, true
}

func (l *RevocationList) remember(jti string, revoked bool, until time.Time) {
	if !revoked && l.NegativeTTL <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.entries == nil {
		l.entries = map[string]cacheEntry{}
	}
	if len(l.entries) >= max(l.MaxEntries, 1) {
		l.sweep()
	}
	l.entries[jti] = cacheEntry{revoked: revoked, until: until}
}

// sweep drops expired entries, or everything when all are fresh (a cache
// miss only costs one read).
func (l *RevocationList) sweep() {
	now := time.Now()
	for k, e := range l.entries {
		if now.After(e.until) {
			delete(l.entries, k)
		}
	}
	if len(l.entries) >= max(l.MaxEntries, 1) {
		clear(l.entries)
	}
}

// forget drops a cached answer after this replica revoked the token.
func (l *RevocationList) forget(jti string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	delete(l.entries, jti)
	l.mu.Unlock()
}
