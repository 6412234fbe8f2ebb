package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// KeysCollection holds the signing keys, shared by every replica.
const KeysCollection = "signingkeys"

// Key rotation. A new key is published (in the JWKS) at least NextKeyLead
// before it signs, so every client's cached key set knows it by the time a
// token signed with it arrives; the key it replaces stays published, and
// valid, until every token it signed has expired. The schedule is data in
// the store (each key's activation time), so every replica switches at the
// same moment without talking to the others.
const (
	// JWKSMaxAge is how long clients may cache the JWKS (its Cache-Control).
	JWKSMaxAge = time.Minute
	// keyRefresh is how stale a replica's view of the keys may get: it
	// reloads them this often, which is how it learns of a next key.
	keyRefresh = 30 * time.Second
	// MinNextKeyLead is the least time between publishing a key and signing
	// with it: a replica learns of it within keyRefresh, a client's cached
	// JWKS is at most JWKSMaxAge old, plus a minute for clocks that differ.
	MinNextKeyLead = JWKSMaxAge + keyRefresh + time.Minute
	// NextKeyLead is the default lead, generous for clients that cache the
	// JWKS longer than they are told to (some libraries keep it 10 minutes).
	NextKeyLead = time.Hour
	// keyRetention is how long a replaced key stays published after the
	// next one started signing: the longest token it signed (MaxTokenTTL)
	// is valid until then, even one signed by a replica that learnt of the
	// switch keyRefresh late, with a minute for clocks and the verifiers'
	// leeway.
	keyRetention = MaxTokenTTL + keyRefresh + time.Minute
)

// Key is one ES256 signing key.
type Key struct {
	ID        string
	Private   *ecdsa.PrivateKey
	CreatedAt time.Time
	// ActivatesAt is when the key starts signing (keys stored before
	// rotation existed: their creation).
	ActivatesAt time.Time
}

// KeyRing loads signing keys from the store and caches them for keyRefresh;
// an unknown key id triggers a reload, so a key published by another
// replica is picked up at once for verification.
type KeyRing struct {
	st store.Store
	// Now is the clock (tests); time.Now when nil. Set it before use.
	Now func() time.Time

	mu  sync.RWMutex
	set *keySet
}

// keySet is one loaded view of the keys, ordered by activation.
type keySet struct {
	keys   []*Key
	byID   map[string]*Key
	loaded time.Time
}

// ErrRotationPending refuses a second next key while one waits to sign.
var ErrRotationPending = errors.New("a next signing key is already published and not signing yet")

// NewKeyRing returns a key ring over st.
func NewKeyRing(st store.Store) *KeyRing { return &KeyRing{st: st} }

func (k *KeyRing) now() time.Time {
	if k.Now != nil {
		return k.Now().UTC()
	}
	return time.Now().UTC()
}

// Active returns the key that signs now, creating the first one if none
// exists.
func (k *KeyRing) Active(ctx context.Context) (*Key, error) {
	set, err := k.current(ctx)
	if err != nil {
		return nil, err
	}
	if a := set.active(k.now()); a != nil {
		return a, nil
	}
	if _, err := k.create(ctx, k.now()); err != nil {
		return nil, err
	}
	return k.Active(ctx)
}

// Lookup finds a key that may verify tokens (published and not retired),
// reloading at most once a second on a miss.
func (k *KeyRing) Lookup(ctx context.Context, id string) (*Key, error) {
	set, err := k.current(ctx)
	if err != nil {
		return nil, err
	}
	if set.byID[id] == nil && k.now().Sub(set.loaded) >= time.Second {
		if set, err = k.reload(ctx); err != nil {
			return nil, err
		}
	}
	key := set.byID[id]
	if key == nil {
		return nil, errors.New("unknown signing key")
	}
	if set.retired(key, k.now()) {
		return nil, fmt.Errorf("signing key %s is retired", id)
	}
	return key, nil
}

// Published returns the keys of the JWKS: the one signing, a next one
// waiting to sign, and replaced ones whose tokens may still be valid.
func (k *KeyRing) Published(ctx context.Context) ([]*Key, error) {
	if _, err := k.Active(ctx); err != nil {
		return nil, err
	}
	set, err := k.current(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Key
	for _, key := range set.keys {
		if !set.retired(key, k.now()) {
			out = append(out, key)
		}
	}
	return out, nil
}

// PublishNext starts a rotation: a new key, published at once, signs from
// lead on (at least MinNextKeyLead unless every client is known to fetch
// the JWKS afresh); the key it replaces retires keyRetention later. Keys
// retired before now are deleted. While a next key waits, it refuses with
// ErrRotationPending.
func (k *KeyRing) PublishNext(ctx context.Context, lead time.Duration) (*Key, error) {
	set, err := k.reload(ctx)
	if err != nil {
		return nil, err
	}
	if pending := set.pending(k.now()); pending != nil {
		return nil, fmt.Errorf("%w: key %s signs from %s", ErrRotationPending, pending.ID, pending.ActivatesAt.Format(time.RFC3339))
	}
	if err := k.deleteRetired(ctx, set); err != nil {
		return nil, err
	}
	return k.create(ctx, k.now().Add(max(lead, 0)))
}

// RetiresAt is when the key with that id stops being published and
// valid; zero while no key replaces it.
func (k *KeyRing) RetiresAt(ctx context.Context, id string) (time.Time, error) {
	set, err := k.current(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if next := set.successor(id); next != nil {
		return next.ActivatesAt.Add(keyRetention), nil
	}
	return time.Time{}, nil
}

func (k *KeyRing) deleteRetired(ctx context.Context, set *keySet) error {
	for _, key := range set.keys {
		if !set.retired(key, k.now()) {
			continue
		}
		if _, err := k.st.Global(KeysCollection).Delete(ctx, query.ID(key.ID)); err != nil {
			return fmt.Errorf("delete retired signing key %s: %w", key.ID, err)
		}
	}
	return nil
}

// create stores a new key that signs from activatesAt.
func (k *KeyRing) create(ctx context.Context, activatesAt time.Time) (*Key, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	id := store.NewID()
	doc := store.Doc{"_id": id, "pem": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"createdAt": k.now(), "activatesAt": activatesAt.UTC()}
	if err := k.st.Global(KeysCollection).Insert(ctx, doc); err != nil {
		return nil, fmt.Errorf("store signing key: %w", err)
	}
	set, err := k.reload(ctx)
	if err != nil {
		return nil, err
	}
	return set.byID[id], nil
}

// current returns the loaded keys, reloading them when older than
// keyRefresh. While the store cannot be read, the keys loaded last stand:
// nobody can change them meanwhile, and tokens keep verifying.
func (k *KeyRing) current(ctx context.Context) (*keySet, error) {
	k.mu.RLock()
	set := k.set
	k.mu.RUnlock()
	if set != nil && k.now().Sub(set.loaded) < keyRefresh {
		return set, nil
	}
	fresh, err := k.reload(ctx)
	if err != nil && set != nil {
		return set, nil
	}
	return fresh, err
}

func (k *KeyRing) reload(ctx context.Context) (*keySet, error) {
	docs, err := k.st.Global(KeysCollection).Find(ctx, store.FindOptions{Filter: query.AllOf()})
	if err != nil {
		return nil, fmt.Errorf("load signing keys: %w", err)
	}
	set := &keySet{byID: map[string]*Key{}, loaded: k.now()}
	for _, d := range docs {
		key, err := parseKey(d)
		if err != nil {
			return nil, err
		}
		set.keys = append(set.keys, key)
		set.byID[key.ID] = key
	}
	sort.Slice(set.keys, func(i, j int) bool { return set.keys[i].before(set.keys[j]) })
	k.mu.Lock()
	k.set = set
	k.mu.Unlock()
	return set, nil
}

// before orders keys by activation, then creation, then id: the same
// order on every replica.
func (key *Key) before(o *Key) bool {
	if !key.ActivatesAt.Equal(o.ActivatesAt) {
		return key.ActivatesAt.Before(o.ActivatesAt)
	}
	if !key.CreatedAt.Equal(o.CreatedAt) {
		return key.CreatedAt.Before(o.CreatedAt)
	}
	return key.ID < o.ID
}

// active is the last key activated by now.
func (s *keySet) active(now time.Time) *Key {
	var a *Key
	for _, key := range s.keys {
		if !key.ActivatesAt.After(now) {
			a = key
		}
	}
	return a
}

// pending is a key published but not signing yet.
func (s *keySet) pending(now time.Time) *Key {
	for _, key := range s.keys {
		if key.ActivatesAt.After(now) {
			return key
		}
	}
	return nil
}

// successor is the key that replaces the key with that id.
func (s *keySet) successor(id string) *Key {
	for i, k := range s.keys {
		if k.ID == id && i+1 < len(s.keys) {
			return s.keys[i+1]
		}
	}
	return nil
}

// retired says whether every token key signed has expired.
func (s *keySet) retired(key *Key, now time.Time) bool {
	next := s.successor(key.ID)
	return next != nil && now.After(next.ActivatesAt.Add(keyRetention))
}

func parseKey(d store.Doc) (*Key, error) {
	id, _ := d["_id"].(string)
	p, _ := d["pem"].(string)
	block, _ := pem.Decode([]byte(p))
	if block == nil {
		return nil, fmt.Errorf("signing key %s: bad PEM", id)
	}
	anyKey, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", id, err)
	}
	priv, ok := anyKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key %s: not ECDSA", id)
	}
	created, _ := d["createdAt"].(time.Time)
	activates, ok := d["activatesAt"].(time.Time)
	if !ok {
		activates = created
	}
	return &Key{ID: id, Private: priv, CreatedAt: created, ActivatesAt: activates}, nil
}
