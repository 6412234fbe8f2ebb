package apikeys

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

var _ auth.APIKeys = (*Keys)(nil)

// Defaults of Keys.
const (
	// CacheTTL bounds how long a replica keeps accepting a key after
	// another replica revoked or deleted it. The replica that revokes
	// forgets the key at once.
	CacheTTL = 10 * time.Second
	// UsedEvery: lastUsedAt is written at most this often per key and
	// replica, so a busy key does not cost a write per request.
	UsedEvery = time.Minute
	// cacheSize bounds both caches; when full they start over.
	cacheSize = 10000
)

// Keys checks API keys against the store, caching accepted ones for TTL.
// Safe for concurrent use; the zero TTL takes CacheTTL.
type Keys struct {
	Store store.Store
	Log   *slog.Logger
	TTL   time.Duration

	mu       sync.Mutex
	accepted map[string]acceptedKey // by hash
	used     map[string]time.Time   // key id -> last lastUsedAt write here
}

type acceptedKey struct {
	p     *auth.Principal
	until time.Time
}

// VerifyAPIKey implements auth.APIKeys.
func (k *Keys) VerifyAPIKey(ctx context.Context, raw string) (*auth.Principal, error) {
	if !wellFormed(raw) {
		return nil, invalid("not a key of this platform")
	}
	hash := Hash(raw)
	p, ok := k.cached(hash)
	if !ok {
		var until time.Time
		var err error
		if p, until, err = k.load(ctx, hash); err != nil {
			return nil, err
		}
		k.remember(hash, p, until)
	}
	k.touch(ctx, p)
	cp := *p
	cp.Scopes = append([]string(nil), p.Scopes...)
	return &cp, nil
}

// Forget drops a key from this replica's cache (it was revoked or deleted
// here).
func (k *Keys) Forget(hash string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	delete(k.accepted, hash)
	k.mu.Unlock()
}

func invalid(why string) error { return fmt.Errorf("%w: API key %s", auth.ErrInvalidToken, why) }

// load reads the key's index entry and record and builds its principal,
// accepted until the cache TTL or the key's expiry, whichever is first.
func (k *Keys) load(ctx context.Context, hash string) (*auth.Principal, time.Time, error) {
	idx, err := k.Store.Global(IndexCollection).Get(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, time.Time{}, invalid("unknown")
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	cust, _ := idx["customer"].(string)
	id, _ := idx["key"].(string)
	rec, err := k.Store.Collection(Collection).Get(tenant.WithCustomer(ctx, cust), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, time.Time{}, invalid("deleted")
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	if why := refusal(rec, hash); why != "" {
		return nil, time.Time{}, invalid(why)
	}
	until := time.Now().Add(k.ttl())
	if exp, ok := rec["expiresAt"].(time.Time); ok && exp.Before(until) {
		until = exp
	}
	return principal(cust, id, rec), until, nil
}

// refusal says why a stored key must not be accepted, or "".
func refusal(rec store.Doc, hash string) string {
	switch {
	case rec[FieldHash] != hash:
		return "does not match its record"
	case rec["_status"] != StatusActive:
		return "revoked"
	}
	if exp, ok := rec["expiresAt"].(time.Time); ok && !time.Now().Before(exp) {
		return "expired"
	}
	return ""
}

// principal acts for the key's creator with the key's scopes; its token id
// gives the key a rate-limit share of its own.
func principal(customer, id string, rec store.Doc) *auth.Principal {
	user, _ := rec[FieldCreatorUser].(string)
	return &auth.Principal{
		Customer: customer, Subject: "apikey:" + id, User: user,
		Scopes: store.Strings(rec["scopes"]), TokenID: "apikey:" + id, APIKey: id,
	}
}

func (k *Keys) ttl() time.Duration {
	if k.TTL > 0 {
		return k.TTL
	}
	return CacheTTL
}

func (k *Keys) cached(hash string) (*auth.Principal, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.accepted[hash]
	if !ok || !time.Now().Before(e.until) {
		return nil, false
	}
	return e.p, true
}

func (k *Keys) remember(hash string, p *auth.Principal, until time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.accepted == nil || len(k.accepted) >= cacheSize {
		k.accepted = make(map[string]acceptedKey, 64)
	}
	k.accepted[hash] = acceptedKey{p: p, until: until}
}

// touch writes lastUsedAt when this replica has not for UsedEvery. The
// write is conditional on the stored time being older, so replicas
// together write about once per UsedEvery too. It is a usage stamp, not a
// change of the record: no updatedAt, no event. A failed write is logged,
// never the caller's problem.
func (k *Keys) touch(ctx context.Context, p *auth.Principal) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	if !k.due(p.APIKey, now) {
		return
	}
	stale := query.Or{Exprs: []query.Expr{
		query.Field{Path: "lastUsedAt", Conds: []query.Cond{query.Exists{Want: false}}},
		query.Field{Path: "lastUsedAt", Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: now.Add(-UsedEvery)}}},
	}}
	_, err := k.Store.Collection(Collection).Update(tenant.WithCustomer(ctx, p.Customer),
		query.AllOf(query.ID(p.APIKey), stale), store.Update{Set: store.Doc{"lastUsedAt": now}})
	if err != nil && !errors.Is(err, store.ErrNotFound) && k.Log != nil {
		k.Log.WarnContext(ctx, "API key lastUsedAt not written", "apiKey", p.APIKey, "error", err.Error())
	}
}

func (k *Keys) due(id string, now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if last, ok := k.used[id]; ok && now.Sub(last) < UsedEvery {
		return false
	}
	if k.used == nil || len(k.used) >= cacheSize {
		k.used = make(map[string]time.Time, 64)
	}
	k.used[id] = now
	return true
}

// Register adds a key's hash to the global index (before its record is
// stored: an entry whose record never came is refused as deleted).
func (k *Keys) Register(ctx context.Context, hash, customer, id string) error {
	return k.Store.Global(IndexCollection).Insert(ctx, store.Doc{"_id": hash, "customer": customer, "key": id, "createdAt": time.Now().UTC()})
}

// Unregister removes a key's index entry and forgets it here.
func (k *Keys) Unregister(ctx context.Context, hash string) error {
	k.Forget(hash)
	_, err := k.Store.Global(IndexCollection).Delete(ctx, query.ID(hash))
	return err
}
