package developer_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/clientcredentials"

	"platform/test/apitest"
	"platform/test/testenv"
)

// TestApps: the secret is shown once, stored only as a hash, rotated by
// rotate-secret; redirect URIs and scopes are checked; deleting an app
// stops its client id at once.
func TestApps(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	p.CheckOpenAPI("developer")
	tok := p.Token("developer.apps.*")
	r := p.Do("POST", "/developer/apps", tok, map[string]any{
		"name": "Reporting", "redirect_uris": []string{"https://app.example.com/cb"}, "scopes": []string{"crm.consumers.view"},
	})
	require.Equal(t, 201, r.Status, string(r.Body))
	app := r.Payload()
	id, clientID, secret := app["_id"].(string), app["client_id"].(string), app["client_secret"].(string)
	require.True(t, strings.HasPrefix(clientID, "oac_"))
	require.True(t, strings.HasPrefix(secret, "oas_"))
	require.Equal(t, false, app["public"])
	require.NotContains(t, string(r.Body), "secretHash")

	got := p.Do("GET", "/developer/apps/"+id, tok, nil)
	require.Equal(t, 200, got.Status)
	require.NotContains(t, string(got.Body), secret)
	require.NotContains(t, string(got.Body), "client_secret")
	require.NotContains(t, string(got.Body), "secretHash")
	raw, err := p.Store.Collection("apps").Get(p.Ctx(), id)
	require.NoError(t, err)
	require.NotContains(t, raw, "client_secret")
	require.NotEqual(t, secret, raw["secretHash"])

	cc := clientcredentials.Config{ClientID: clientID, ClientSecret: secret, TokenURL: p.URL + "/oauth/token"}
	_, err = cc.Token(bg())
	require.NoError(t, err)

	rot := p.Do("POST", "/developer/apps/"+id+"/actions/rotate-secret", tok, nil)
	require.Equal(t, 200, rot.Status, string(rot.Body))
	newSecret := rot.Payload()["client_secret"].(string)
	require.NotEqual(t, secret, newSecret)
	_, err = cc.Token(bg())
	require.Error(t, err, "the old secret stopped working")
	cc.ClientSecret = newSecret
	_, err = cc.Token(bg())
	require.NoError(t, err)

	r = p.Do("PATCH", "/developer/apps/"+id, tok, map[string]any{"public": true})
	require.Equal(t, 422, r.Status)
	r = p.Do("PATCH", "/developer/apps/"+id, tok, map[string]any{"client_id": "oac_mine"})
	require.Equal(t, 422, r.Status)

	require.Equal(t, 200, p.Do("DELETE", "/developer/apps/"+id, tok, nil).Status)
	_, err = cc.Token(bg())
	require.Error(t, err, "a deleted app's client id is unknown at once")
}

func TestAppValidation(t *testing.T) {
	f := newFixture(t)
	p, tok := f.P, f.P.Token("developer.apps.*")
	refused := func(name string, body map[string]any) scenario {
		return scenario{Name: name, Method: "POST", Path: "/developer/apps", Body: body, Status: 422}
	}
	apitest.Run(t, f, []scenario{
		refused("plain http", map[string]any{"name": "x", "redirect_uris": []string{"http://evil.example.com/cb"}, "scopes": []string{"crm.*"}}),
		refused("a fragment", map[string]any{"name": "x", "redirect_uris": []string{"https://a.example.com/cb#frag"}, "scopes": []string{"crm.*"}}),
		refused("a wildcard host", map[string]any{"name": "x", "redirect_uris": []string{"https://*.example.com/cb"}, "scopes": []string{"crm.*"}}),
		refused("no redirect URI", map[string]any{"name": "x", "redirect_uris": []string{}, "scopes": []string{"crm.*"}}),
		refused("an unknown scope", map[string]any{"name": "x", "redirect_uris": []string{"https://a.example.com/cb"}, "scopes": []string{"nosuch.things.view"}}),
		refused("a scope with a space", map[string]any{"name": "x", "redirect_uris": []string{"https://a.example.com/cb"}, "scopes": []string{"crm consumers"}}),
	})
	pub := p.Do("POST", "/developer/apps", tok, map[string]any{"name": "SPA", "public": true,
		"redirect_uris": []string{"http://127.0.0.1:3000/cb", "com.example.app:/cb"}, "scopes": []string{"crm.*", "profile"}})
	require.Equal(t, 201, pub.Status, string(pub.Body))
	require.Nil(t, pub.Payload()["client_secret"])
	require.Equal(t, 409, p.Do("POST", "/developer/apps/"+pub.Payload()["_id"].(string)+"/actions/rotate-secret", tok, nil).Status)
	require.Equal(t, 403, p.Do("GET", "/developer/apps", p.Token("crm.*"), nil).Status)
}
