package oauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/clientcredentials"

	"platform/test/testenv"
)

// TestJWKSAndKeyRotation: tokens verify against the published keys; after
// a rotation new tokens use the new key while older tokens keep working.
func TestJWKSAndKeyRotation(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	app := registerApp(t, p, false, "crm.*")
	cc := clientcredentials.Config{ClientID: app.ClientID, ClientSecret: app.Secret, TokenURL: p.URL + "/oauth/token"}
	old, err := cc.Token(bg())
	require.NoError(t, err)
	verifyWithJWKS(t, p, old.AccessToken)

	_, err = p.Keys.Rotate(bg())
	require.NoError(t, err)
	fresh, err := cc.Token(bg())
	require.NoError(t, err)
	oh, _ := jwtParts(t, old.AccessToken)
	fh, _ := jwtParts(t, fresh.AccessToken)
	require.NotEqual(t, oh["kid"], fh["kid"])
	verifyWithJWKS(t, p, fresh.AccessToken)
	verifyWithJWKS(t, p, old.AccessToken)
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", old.AccessToken, nil).Status)
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", fresh.AccessToken, nil).Status)
}

// verifyWithJWKS checks a token's ES256 signature with the key of its kid
// from /oauth/jwks.json, as a resource server elsewhere would.
func verifyWithJWKS(t *testing.T, p *testenv.Platform, tok string) {
	t.Helper()
	r := p.Do("GET", "/oauth/jwks.json", "", nil)
	require.Equal(t, 200, r.Status)
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &set))
	h, _ := jwtParts(t, tok)
	var jwk map[string]string
	for _, k := range set.Keys {
		if k["kid"] == h["kid"] {
			jwk = k
		}
	}
	require.NotNil(t, jwk, "kid %v not published", h["kid"])
	require.Equal(t, "ES256", jwk["alg"])
	coord := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		require.NoError(t, err)
		require.Len(t, b, 32, "RFC 7518: P-256 coordinates are 32 bytes")
		return b
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, coord(jwk["x"])...), coord(jwk["y"])...))
	require.NoError(t, err)
	i := strings.LastIndexByte(tok, '.')
	sig, err := base64.RawURLEncoding.DecodeString(tok[i+1:])
	require.NoError(t, err)
	require.Len(t, sig, 64)
	sum := sha256.Sum256([]byte(tok[:i]))
	require.True(t, ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])))
}
