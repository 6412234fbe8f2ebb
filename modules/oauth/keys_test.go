package oauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/clientcredentials"

	"platform/kernel/auth"
	"platform/test/testenv"
)

// TestKeyRotationWithACachingClient: a resource server that caches the
// JWKS as long as Cache-Control allows and never refetches before keeps
// verifying through a rotation: the token signed after the switch with the
// key set it fetched before (the next key was published first), and the
// token signed before with the key that was replaced. The API accepts both.
func TestKeyRotationWithACachingClient(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	app := registerApp(t, p, false, "crm.*")
	cc := clientcredentials.Config{ClientID: app.ClientID, ClientSecret: app.Secret, TokenURL: p.URL + "/oauth/token"}
	old, err := cc.Token(bg())
	require.NoError(t, err)

	// A short lead: this client fetches right after the publication, and
	// waiting the production lead (auth.NextKeyLead) would take an hour.
	next, err := p.Keys.PublishNext(bg(), 2*time.Second)
	require.NoError(t, err)
	rs := &jwksClient{url: p.URL + "/oauth/jwks.json"}
	require.NoError(t, rs.verify(t, old.AccessToken))
	require.Equal(t, auth.JWKSMaxAge, rs.maxAge, "the cache lifetime the rotation's lead allows for")
	time.Sleep(time.Until(next.ActivatesAt) + 100*time.Millisecond)

	fresh, err := cc.Token(bg())
	require.NoError(t, err)
	h, _ := jwtParts(t, fresh.AccessToken)
	require.Equal(t, next.ID, h["kid"], "signed with the next key once it is due")
	require.NoError(t, rs.verify(t, fresh.AccessToken), "with the key set fetched before the switch")
	require.NoError(t, rs.verify(t, old.AccessToken), "the replaced key stays published")
	// The cache lives a minute; the test takes seconds, so a second fetch
	// would mean the client needed one.
	require.Equal(t, 1, rs.fetches, "verified from the cache")
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", old.AccessToken, nil).Status)
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", fresh.AccessToken, nil).Status)
}

// jwksClient is a resource server elsewhere that verifies the platform's
// access tokens with /oauth/jwks.json the strictest way the platform must
// cope with: it fetches the key set once and keeps it for the max-age of
// its Cache-Control, without refetching for an unknown kid before then.
type jwksClient struct {
	url     string
	keys    map[string]*ecdsa.PublicKey
	until   time.Time
	maxAge  time.Duration
	fetches int
}

// verify checks tok's ES256 signature with the cached key of its kid.
func (c *jwksClient) verify(t *testing.T, tok string) error {
	t.Helper()
	if err := c.refresh(); err != nil {
		return err
	}
	h, _ := jwtParts(t, tok)
	pub := c.keys[fmt.Sprint(h["kid"])]
	if pub == nil {
		return fmt.Errorf("kid %v is not in the cached key set", h["kid"])
	}
	i := strings.LastIndexByte(tok, '.')
	sig, err := base64.RawURLEncoding.DecodeString(tok[i+1:])
	if err != nil || len(sig) != 64 {
		return errors.New("not an ES256 signature")
	}
	sum := sha256.Sum256([]byte(tok[:i]))
	if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errors.New("bad signature")
	}
	return nil
}

// refresh fetches the key set unless the cached one is still fresh.
func (c *jwksClient) refresh() error {
	if c.keys != nil && time.Now().Before(c.until) {
		return nil
	}
	res, err := http.Get(c.url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.NewDecoder(res.Body).Decode(&set); err != nil {
		return err
	}
	c.fetches++
	c.maxAge = maxAge(res.Header.Get("Cache-Control"))
	c.keys, c.until = map[string]*ecdsa.PublicKey{}, time.Now().Add(c.maxAge)
	for _, k := range set.Keys {
		pub, err := parseJWK(k)
		if err != nil {
			return err
		}
		c.keys[k["kid"]] = pub
	}
	return nil
}

// maxAge reads Cache-Control's max-age (0 when absent: no caching).
func maxAge(cc string) time.Duration {
	for _, part := range strings.Split(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "max-age="); ok {
			if s, err := strconv.Atoi(v); err == nil {
				return time.Duration(s) * time.Second
			}
		}
	}
	return 0
}

// parseJWK reads an RFC 7518 P-256 public key.
func parseJWK(k map[string]string) (*ecdsa.PublicKey, error) {
	if k["kty"] != "EC" || k["crv"] != "P-256" || k["alg"] != "ES256" {
		return nil, fmt.Errorf("unexpected key %v", k)
	}
	x, errX := base64.RawURLEncoding.DecodeString(k["x"])
	y, errY := base64.RawURLEncoding.DecodeString(k["y"])
	if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
		return nil, errors.New("RFC 7518: P-256 coordinates are 32 bytes of base64url")
	}
	return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
}
