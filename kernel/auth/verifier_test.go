package auth_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/auth"
	"platform/test/testenv"
)

type revocations struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (r *revocations) Revoked(_ context.Context, id string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[id], nil
}

func newPair(t *testing.T) (*auth.Minter, *auth.Verifier, *revocations) {
	keys := auth.NewKeyRing(testenv.SQLiteStore(t))
	rev := &revocations{ids: map[string]bool{}}
	return &auth.Minter{Keys: keys, Issuer: "http://issuer", Audience: "http://api"},
		&auth.Verifier{Keys: keys, Issuer: "http://issuer", Audience: "http://api", Revoked: rev}, rev
}

// TestVerifiedTokensStillHonourRevocation: the cache of checked signatures
// never skips the revocation list.
func TestVerifiedTokensStillHonourRevocation(t *testing.T) {
	t.Parallel()
	m, v, rev := newPair(t)
	ctx := context.Background()
	tok, claims, err := m.Mint(ctx, auth.MintInput{Customer: "c1", User: "u1", Scopes: []string{"crm.*"}})
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		p, err := v.Verify(ctx, tok)
		require.NoError(t, err)
		require.Equal(t, "c1", p.Customer)
		require.True(t, p.Allows("crm.consumers.view"))
		p.Scopes[0] = "*" // must not leak into the cache
	}
	p, err := v.Verify(ctx, tok)
	require.NoError(t, err)
	require.False(t, p.Allows("config.credentials.decrypt"), "a caller's change to its principal stays its own")
	rev.mu.Lock()
	rev.ids[claims.ID] = true
	rev.mu.Unlock()
	_, err = v.Verify(ctx, tok)
	require.ErrorIs(t, err, auth.ErrInvalidToken)
}

// TestExpiredTokenIsRefusedAfterBeingCached.
func TestExpiredTokenIsRefusedAfterBeingCached(t *testing.T) {
	t.Parallel()
	m, v, _ := newPair(t)
	ctx := context.Background()
	tok, _, err := m.Mint(ctx, auth.MintInput{Customer: "c1", Scopes: []string{"crm.*"}, TTL: time.Second})
	require.NoError(t, err)
	_, err = v.Verify(ctx, tok)
	require.NoError(t, err)
	time.Sleep(7 * time.Second) // past expiry and the 5 s leeway
	_, err = v.Verify(ctx, tok)
	require.ErrorIs(t, err, auth.ErrInvalidToken)
}

func TestForgedAndForeignTokensAreRefused(t *testing.T) {
	t.Parallel()
	m, v, _ := newPair(t)
	other, _, _ := newPair(t)
	ctx := context.Background()
	foreign, _, err := other.Mint(ctx, auth.MintInput{Customer: "c1", Scopes: []string{"*"}})
	require.NoError(t, err)
	_, err = v.Verify(ctx, foreign)
	require.ErrorIs(t, err, auth.ErrInvalidToken, "signed by a key this ring does not have")
	tok, _, err := m.Mint(ctx, auth.MintInput{Customer: "c1", Scopes: []string{"crm.*"}})
	require.NoError(t, err)
	tampered := tok[:len(tok)-4] + "AAAA"
	_, err = v.Verify(ctx, tampered)
	require.ErrorIs(t, err, auth.ErrInvalidToken)
	_, err = v.Verify(ctx, "not-a-jwt")
	require.ErrorIs(t, err, auth.ErrInvalidToken)
}
