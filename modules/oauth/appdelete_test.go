package oauth_test

import (
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"platform/kernel/query"
	"platform/modules/oauth"
	"platform/test/testenv"
)

// TestDeletingAnAppEndsItsTokens: DELETE /developer/apps/:id revokes the
// app's access tokens (user grants and client credentials) and refresh
// tokens at once: the next API call with one is a 401. Tokens of other apps
// and those minted by `platform token` are not the app's and keep working.
func TestDeletingAnAppEndsItsTokens(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	p.CheckOpenAPI("developer")
	p.CheckOpenAPI("crm")
	app := registerApp(t, p, false, "crm.*")
	other := registerApp(t, p, false, "crm.*")
	conf := app.config(p, "crm.consumers.view")
	code, verifier := codeFor(t, p, conf)
	user, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	service, err := (&clientcredentials.Config{ClientID: app.ClientID, ClientSecret: app.Secret, TokenURL: p.URL + "/oauth/token"}).Token(bg())
	require.NoError(t, err)
	kept, err := (&clientcredentials.Config{ClientID: other.ClientID, ClientSecret: other.Secret, TokenURL: p.URL + "/oauth/token"}).Token(bg())
	require.NoError(t, err)
	minted := p.Token("crm.consumers.view")
	for _, tok := range []string{user.AccessToken, service.AccessToken, kept.AccessToken, minted} {
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", tok, nil).Status) // caches "not revoked"
	}

	require.Equal(t, 200, p.Do("DELETE", "/developer/apps/"+app.ID, p.Token("developer.apps.*"), nil).Status)
	for name, tok := range map[string]string{"user grant": user.AccessToken, "client credentials": service.AccessToken} {
		r := p.Do("GET", "/crm/consumers", tok, nil)
		require.Equal(t, 401, r.Status, name)
		require.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer", name)
	}
	live, err := p.Store.Global(oauth.RefreshCollection).Count(bg(), query.AllOf(query.Eq("clientId", app.ClientID), query.Eq("active", true)))
	require.NoError(t, err)
	require.Zero(t, live, "the app's refresh tokens are revoked, not only unusable while the client id is unknown")
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", kept.AccessToken, nil).Status, "another app's token")
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", minted, nil).Status, "a token of platform token")
}

// TestAppDeletedWhileATokenIsIssued: an app deleted after the token
// endpoint accepted its client, but before the token was stored, gets no
// working token: the endpoint sees the client gone after storing it,
// revokes it and answers invalid_client.
func TestAppDeletedWhileATokenIsIssued(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	app := registerApp(t, p, false, "crm.*")
	var once sync.Once
	oauth.OnIssuing(p.OAuth, func() {
		once.Do(func() {
			require.Equal(t, 200, p.Do("DELETE", "/developer/apps/"+app.ID, p.Token("developer.apps.*"), nil).Status)
		})
	})
	st, body := tokenPost(t, p, "/oauth/token", url.Values{"grant_type": {"client_credentials"}}, app.ClientID, app.Secret)
	require.Equal(t, 401, st, body)
	require.Equal(t, "invalid_client", body["error"])
	live, err := p.Store.Global(oauth.AccessCollection).Count(bg(), query.AllOf(query.Eq("clientId", app.ClientID), query.Eq("revoked", false)))
	require.NoError(t, err)
	require.Zero(t, live, "the token stored meanwhile is revoked")
}
