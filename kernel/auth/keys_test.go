package auth_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/auth"
	"platform/kernel/store"
	"platform/test/testenv"
)

// clock is a settable time shared by the replicas of a test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// replica is one process's view of the shared keys: its own key ring,
// minter and verifier.
type replica struct {
	keys *auth.KeyRing
	m    *auth.Minter
	v    *auth.Verifier
}

func newReplica(st store.Store, c *clock) replica {
	keys := auth.NewKeyRing(st)
	keys.Now = c.Now
	return replica{keys: keys, m: &auth.Minter{Keys: keys, Issuer: "http://issuer", Audience: "http://api"},
		v: &auth.Verifier{Keys: keys, Issuer: "http://issuer", Audience: "http://api"}}
}

func (r replica) kid(t *testing.T) string {
	t.Helper()
	k, err := r.keys.Active(context.Background())
	require.NoError(t, err)
	return k.ID
}

func (r replica) published(t *testing.T) []string {
	t.Helper()
	keys, err := r.keys.Published(context.Background())
	require.NoError(t, err)
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	return ids
}

// TestRotationPublishesBeforeSigningAndRetiresAfterExpiry, across two
// replicas of one store: a next key is published at once but signs only
// after the lead, on both replicas; the replaced key stays published and
// keeps verifying until its longest token expired, then it is gone.
func TestRotationPublishesBeforeSigningAndRetiresAfterExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.SQLiteStore(t)
	c := &clock{now: time.Now().UTC()}
	a, b := newReplica(st, c), newReplica(st, c)
	first := a.kid(t)
	require.Equal(t, first, b.kid(t), "one key for every replica")
	longest, _, err := a.m.Mint(ctx, auth.MintInput{Customer: "c1", Scopes: []string{"crm.*"}, TTL: auth.MaxTokenTTL})
	require.NoError(t, err)

	next, err := b.keys.PublishNext(ctx, auth.MinNextKeyLead)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{first, next.ID}, b.published(t), "published at once where it was made")
	require.Equal(t, first, b.kid(t), "not signing before its time")
	c.advance(31 * time.Second) // the other replica reloads the keys every 30 s
	require.ElementsMatch(t, []string{first, next.ID}, a.published(t), "and soon on every replica")
	require.Equal(t, first, a.kid(t))
	_, err = a.keys.PublishNext(ctx, auth.MinNextKeyLead)
	require.ErrorIs(t, err, auth.ErrRotationPending)

	c.advance(auth.MinNextKeyLead)
	require.Equal(t, next.ID, a.kid(t), "signing with the next key from its activation")
	require.Equal(t, next.ID, b.kid(t))
	retires, err := a.keys.RetiresAt(ctx, first)
	require.NoError(t, err)
	require.Equal(t, next.ActivatesAt.Add(auth.MaxTokenTTL+90*time.Second), retires)

	c.advance(auth.MaxTokenTTL)
	require.ElementsMatch(t, []string{first, next.ID}, a.published(t), "the replaced key outlives its tokens")
	_, err = a.keys.Lookup(ctx, first)
	require.NoError(t, err)
	c.advance(2 * time.Minute)
	require.Equal(t, []string{next.ID}, a.published(t), "retired once every token it signed expired")
	_, err = a.keys.Lookup(ctx, first)
	require.Error(t, err)
	_, err = a.v.Verify(ctx, longest)
	require.ErrorIs(t, err, auth.ErrInvalidToken)

	third, err := a.keys.PublishNext(ctx, 0)
	require.NoError(t, err)
	n, err := st.Global(auth.KeysCollection).Count(ctx, nil)
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "a rotation deletes the retired keys")
	require.Equal(t, third.ID, a.kid(t))
}

// TestTokensSignedBeforeRotationVerify: with the real clock, a token
// signed by the replaced key verifies after the switch, on a replica that
// never saw that key sign.
func TestTokensSignedBeforeRotationVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.SQLiteStore(t)
	c := &clock{now: time.Now().UTC()}
	a, b := newReplica(st, c), newReplica(st, c)
	old, _, err := a.m.Mint(ctx, auth.MintInput{Customer: "c1", Scopes: []string{"crm.*"}})
	require.NoError(t, err)
	_, err = a.keys.PublishNext(ctx, auth.MinNextKeyLead)
	require.NoError(t, err)
	c.advance(auth.MinNextKeyLead)
	fresh, _, err := a.m.Mint(ctx, auth.MintInput{Customer: "c1", Scopes: []string{"crm.*"}})
	require.NoError(t, err)
	for _, tok := range []string{old, fresh} {
		_, err := b.v.Verify(ctx, tok)
		require.NoError(t, err)
	}
}

// TestMintRefusesLifetimesBeyondKeyRetention: a key retires MaxTokenTTL
// after it was replaced, so no token may live longer.
func TestMintRefusesLifetimesBeyondKeyRetention(t *testing.T) {
	t.Parallel()
	m, _, _ := newPair(t)
	_, _, err := m.Mint(context.Background(), auth.MintInput{Customer: "c1", TTL: auth.MaxTokenTTL + time.Second})
	require.Error(t, err)
}

// TestKeysLoadedLastStandWhileTheStoreIsDown: the periodic reload failing
// does not stop a replica from verifying with the keys it has.
func TestKeysLoadedLastStandWhileTheStoreIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.SQLiteStore(t)
	c := &clock{now: time.Now().UTC()}
	r := newReplica(st, c)
	tok, _, err := r.m.Mint(ctx, auth.MintInput{Customer: "c1", Scopes: []string{"crm.*"}})
	require.NoError(t, err)
	require.NoError(t, st.Close(ctx))
	c.advance(time.Minute) // due for a reload, which fails
	_, err = r.v.Verify(ctx, tok)
	require.NoError(t, err)
}
