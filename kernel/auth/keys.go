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
	"sync"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// KeysCollection holds the signing keys, shared by every replica.
const KeysCollection = "signingkeys"

// Key is one ES256 signing key.
type Key struct {
	ID        string
	Private   *ecdsa.PrivateKey
	CreatedAt time.Time
}

// KeyRing loads signing keys from the store and caches them; an unknown key
// id triggers a reload, so keys rotated by another replica are picked up.
type KeyRing struct {
	st store.Store

	mu     sync.RWMutex
	keys   map[string]*Key
	active *Key
	loaded time.Time
}

// NewKeyRing returns a key ring over st.
func NewKeyRing(st store.Store) *KeyRing { return &KeyRing{st: st, keys: map[string]*Key{}} }

// Active returns the newest key, creating the first one if none exists.
func (k *KeyRing) Active(ctx context.Context) (*Key, error) {
	k.mu.RLock()
	a := k.active
	k.mu.RUnlock()
	if a != nil {
		return a, nil
	}
	if err := k.reload(ctx); err != nil {
		return nil, err
	}
	k.mu.RLock()
	a = k.active
	k.mu.RUnlock()
	if a != nil {
		return a, nil
	}
	return k.Rotate(ctx)
}

// Lookup finds a key by id, reloading at most once a second on a miss.
func (k *KeyRing) Lookup(ctx context.Context, id string) (*Key, error) {
	k.mu.RLock()
	key, ok := k.keys[id]
	fresh := time.Since(k.loaded) < time.Second
	k.mu.RUnlock()
	if ok {
		return key, nil
	}
	if !fresh {
		if err := k.reload(ctx); err != nil {
			return nil, err
		}
		k.mu.RLock()
		key, ok = k.keys[id]
		k.mu.RUnlock()
		if ok {
			return key, nil
		}
	}
	return nil, errors.New("unknown signing key")
}

// All returns every known key (for the JWKS document).
func (k *KeyRing) All(ctx context.Context) ([]*Key, error) {
	if _, err := k.Active(ctx); err != nil {
		return nil, err
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	out := make([]*Key, 0, len(k.keys))
	for _, key := range k.keys {
		out = append(out, key)
	}
	return out, nil
}

// Rotate creates a new active key; older keys stay valid for verification.
func (k *KeyRing) Rotate(ctx context.Context) (*Key, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	id := store.NewID()
	now := time.Now().UTC()
	doc := store.Doc{"_id": id, "pem": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "createdAt": now}
	if err := k.st.Global(KeysCollection).Insert(ctx, doc); err != nil {
		return nil, fmt.Errorf("store signing key: %w", err)
	}
	if err := k.reload(ctx); err != nil {
		return nil, err
	}
	return k.Lookup(ctx, id)
}

func (k *KeyRing) reload(ctx context.Context) error {
	docs, err := k.st.Global(KeysCollection).Find(ctx, store.FindOptions{Filter: query.AllOf()})
	if err != nil {
		return fmt.Errorf("load signing keys: %w", err)
	}
	keys := map[string]*Key{}
	var active *Key
	for _, d := range docs {
		key, err := parseKey(d)
		if err != nil {
			return err
		}
		keys[key.ID] = key
		if active == nil || key.CreatedAt.After(active.CreatedAt) || (key.CreatedAt.Equal(active.CreatedAt) && key.ID > active.ID) {
			active = key
		}
	}
	k.mu.Lock()
	k.keys, k.active, k.loaded = keys, active, time.Now()
	k.mu.Unlock()
	return nil
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
	return &Key{ID: id, Private: priv, CreatedAt: created}, nil
}
