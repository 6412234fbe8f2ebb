package oauth_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/oauth"
	"platform/test/testenv"
)

// TestLifetimesAreSettings: PLATFORM_OAUTH_CODE_TTL, PLATFORM_ACCESS_TOKEN_TTL
// and PLATFORM_REFRESH_TOKEN_TTL decide how long codes, access tokens (every
// grant) and refresh tokens live.
func TestLifetimesAreSettings(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Configure: func(c *settings.Config) {
		c.OAuthCodeTTL, c.AccessTokenTTL, c.RefreshTokenTTL = 30*time.Second, 10*time.Minute, 2*time.Hour
	}})
	app := registerApp(t, p, false, "crm.*")
	conf := app.config(p, "crm.consumers.view")
	before := time.Now()
	code, verifier := codeFor(t, p, conf)
	requireExpiry(t, storedExpiry(t, p, oauth.CodesCollection, app.ClientID), before, 30*time.Second)

	before = time.Now()
	tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	requireExpiry(t, storedExpiry(t, p, oauth.RefreshCollection, app.ClientID), before, 2*time.Hour)
	require.EqualValues(t, 600, tok.ExpiresIn)
	_, claims := jwtParts(t, tok.AccessToken)
	require.EqualValues(t, 600, claims["exp"].(float64)-claims["iat"].(float64))

	st, body := tokenPost(t, p, "/oauth/token", url.Values{"grant_type": {"client_credentials"}}, app.ClientID, app.Secret)
	require.Equal(t, 200, st, body)
	require.EqualValues(t, 600, body["expires_in"])
}

// storedExpiry is the expiry of the app's one stored code or refresh token.
func storedExpiry(t *testing.T, p *testenv.Platform, collection, clientID string) time.Time {
	t.Helper()
	docs, err := p.Store.Global(collection).Find(bg(), store.FindOptions{Filter: query.Eq("clientId", clientID)})
	require.NoError(t, err)
	require.Len(t, docs, 1)
	exp, ok := docs[0]["expiresAt"].(time.Time)
	require.True(t, ok, "expiresAt: %v", docs[0]["expiresAt"])
	return exp
}

// requireExpiry: exp is ttl after a moment between before and now (fosite
// rounds expiries to the second, hence the second's slack).
func requireExpiry(t *testing.T, exp, before time.Time, ttl time.Duration) {
	t.Helper()
	require.False(t, exp.Before(before.Add(ttl-time.Second)), "expires %s, want %s after %s", exp, ttl, before)
	require.False(t, exp.After(time.Now().Add(ttl+time.Second)), "expires %s, want %s from now at most", exp, ttl)
}
