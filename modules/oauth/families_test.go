package oauth_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"platform/kernel/store"
	"platform/modules/audit/trail"
	"platform/test/testenv"
)

// TestOAuthTokenFamilies: /config/oauthtokens lists the families issued to
// apps (a code grant with its rotated refresh tokens, a client-credentials
// token) without token values, and revoke ends a family: its access token
// is refused and its refresh token no longer refreshes. Another customer
// sees none of them.
func TestOAuthTokenFamilies(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	p.CheckOpenAPI("config")
	app := registerApp(t, p, false, "crm.*")
	conf := app.config(p, "crm.consumers.view")
	code, verifier := codeFor(t, p, conf)
	tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	tok.Expiry = time.Now().Add(-time.Minute)
	rotated, err := conf.TokenSource(bg(), tok).Token()
	require.NoError(t, err)
	st, cc := tokenPost(t, p, "/oauth/token", url.Values{"grant_type": {"client_credentials"}}, app.ClientID, app.Secret)
	require.Equal(t, 200, st, cc)

	view := p.Token("config.oauthtokens.view")
	r := p.Do("GET", "/config/oauthtokens?count=true", view, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	list := r.List()
	require.Len(t, list, 2, string(r.Body))
	require.EqualValues(t, 2, r.Meta()["total"])
	var codeFam map[string]any
	for _, f := range list {
		require.Equal(t, app.ClientID, f["clientId"])
		require.Equal(t, true, f["active"])
		if f["user"] == p.Admin.ID {
			codeFam = f
		}
	}
	require.NotNil(t, codeFam, "the code grant's family names its user")
	require.EqualValues(t, 2, codeFam["accessTokens"], "issued and rotated")
	require.EqualValues(t, 2, codeFam["refreshTokens"])
	require.Equal(t, []any{"crm.consumers.view"}, codeFam["scopes"])
	for _, secret := range []string{tok.AccessToken, tok.RefreshToken, rotated.AccessToken, rotated.RefreshToken, cc["access_token"].(string),
		strings.Split(rotated.RefreshToken, ".")[1]} {
		require.NotContains(t, string(r.Body), secret, "no token value or signature")
	}
	require.Len(t, p.Do("GET", "/config/oauthtokens?user="+p.Admin.ID, view, nil).List(), 1)
	require.Len(t, p.Do("GET", "/config/oauthtokens?clientId=oac_nobody", view, nil).List(), 0)
	require.Equal(t, 400, p.Do("GET", "/config/oauthtokens?active=maybe", view, nil).Status)
	require.Equal(t, 400, p.Do("GET", "/config/oauthtokens?limit=0", view, nil).Status)
	require.Equal(t, 400, p.Do("GET", "/config/oauthtokens?count=yes", view, nil).Status, "count is true or false, as on every list")
	require.Len(t, p.Do("GET", "/config/oauthtokens?limit=1&page=2", view, nil).List(), 1)

	id := codeFam["_id"].(string)
	other, admin := p.OtherCustomer("families-other")
	otok := p.TokenFor(other.ID, admin.ID, "*")
	require.Empty(t, p.Do("GET", "/config/oauthtokens", otok, nil).List())
	require.Equal(t, 404, p.Do("GET", "/config/oauthtokens/"+id, otok, nil).Status)
	require.Equal(t, 404, p.Do("POST", "/config/oauthtokens/"+id+"/actions/revoke", otok, nil).Status)
	require.Equal(t, 403, p.Do("POST", "/config/oauthtokens/"+id+"/actions/revoke", view, nil).Status, "revoke has its own right")

	require.Equal(t, 200, p.Do("GET", "/crm/consumers", rotated.AccessToken, nil).Status)
	r = p.Do("POST", "/config/oauthtokens/"+id+"/actions/revoke", p.Token("config.oauthtokens.*"), nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, false, r.Payload()["active"])
	require.NotEmpty(t, r.Payload()["revokedAt"])
	require.Equal(t, 401, p.Do("GET", "/crm/consumers", rotated.AccessToken, nil).Status, "the family's access token stops working")
	rotated.Expiry = time.Now().Add(-time.Minute)
	_, err = conf.TokenSource(bg(), rotated).Token()
	require.Equal(t, "invalid_grant", oauthError(t, err), "its refresh token no longer refreshes")
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", cc["access_token"].(string), nil).Status, "the other family still works")
	got := p.Do("GET", "/config/oauthtokens/"+id, view, nil)
	require.Equal(t, false, got.Payload()["active"])
	require.Len(t, p.Do("GET", "/config/oauthtokens?active=true", view, nil).List(), 1)

	recs, err := p.Store.Collection(trail.Collection).Find(p.Ctx(), store.FindOptions{})
	require.NoError(t, err)
	found := false
	for _, rec := range recs {
		found = found || (rec["action"] == "config.oauthtokens.revoke" && rec["target"] == id && rec["actor"] == p.Admin.ID)
	}
	require.True(t, found, "the revoke is audited")
}
