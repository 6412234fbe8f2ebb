package oauth_test

import (
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/identity"
	"platform/modules/oauth"
	"platform/test/testenv"
)

// TestRulesRejectAbuse has one subtest per rule of the flow.
func TestRulesRejectAbuse(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	app := registerApp(t, p, false, "crm.*", "profile", "email")
	conf := app.config(p, "crm.consumers.*")

	t.Run("plain PKCE and a missing challenge are refused before sign-in", func(t *testing.T) {
		for _, opts := range [][]oauth2.AuthCodeOption{
			{oauth2.SetAuthURLParam("code_challenge", oauth2.GenerateVerifier()), oauth2.SetAuthURLParam("code_challenge_method", "plain")},
			{},
			{oauth2.SetAuthURLParam("code_challenge", "abc"), oauth2.SetAuthURLParam("code_challenge_method", "S256")},
		} {
			pg := newBrowser(t, p).get(conf.AuthCodeURL("state-abc", opts...))
			require.NotNil(t, pg.Location, pg.Body)
			require.Equal(t, "invalid_request", pg.Location.Query().Get("error"))
			require.Equal(t, "state-abc", pg.Location.Query().Get("state"))
		}
	})

	t.Run("wrong verifier fails and burns the code", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		_, err := conf.Exchange(bg(), code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
		require.Equal(t, "invalid_grant", oauthError(t, err))
		_, err = conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.Equal(t, "invalid_grant", oauthError(t, err))
	})

	t.Run("reused code fails and revokes what the code gave", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", tok.AccessToken, nil).Status)
		_, err = conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.Equal(t, "invalid_grant", oauthError(t, err))
		require.Equal(t, 401, p.Do("GET", "/crm/consumers", tok.AccessToken, nil).Status, "access token revoked")
		_, err = conf.TokenSource(bg(), expired(tok)).Token()
		require.Equal(t, "invalid_grant", oauthError(t, err), "refresh token revoked")
		require.Contains(t, auditActions(t, p), "oauth.code_reuse")
	})

	t.Run("parallel redemptions: at most one succeeds", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier)); err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		require.LessOrEqual(t, wins, 1)
	})

	t.Run("reused refresh token revokes the family", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		next, err := conf.TokenSource(bg(), expired(tok)).Token()
		require.NoError(t, err)
		_, err = conf.TokenSource(bg(), expired(tok)).Token() // the old refresh token again
		require.Equal(t, "invalid_grant", oauthError(t, err))
		_, err = conf.TokenSource(bg(), expired(next)).Token()
		require.Equal(t, "invalid_grant", oauthError(t, err), "the newest refresh token died with the family")
		require.Equal(t, 401, p.Do("GET", "/crm/consumers", next.AccessToken, nil).Status)
		require.Contains(t, auditActions(t, p), "oauth.refresh_reuse")
	})

	t.Run("wrong redirect URI", func(t *testing.T) {
		bad := *conf
		bad.RedirectURL = app.Redirect + "/other"
		pg := newBrowser(t, p).get(bad.AuthCodeURL("state-abc", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		require.Equal(t, 400, pg.Status)
		require.Nil(t, pg.Location, "never redirects to an unregistered address")
		require.Contains(t, pg.Body, "Wrong redirect address")

		code, verifier := codeFor(t, p, conf)
		_, err := bad.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.Equal(t, "invalid_grant", oauthError(t, err), "redirect_uri differs from the authorize request")
	})

	t.Run("wrong client secret", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		bad := *conf
		bad.ClientSecret = "oas_wrong"
		_, err := bad.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.Equal(t, "invalid_client", oauthError(t, err))
		var re *oauth2.RetrieveError
		require.ErrorAs(t, err, &re)
		require.Equal(t, 401, re.Response.StatusCode)
	})

	t.Run("expired code", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		// Codes live one minute; age every stored code instead of waiting.
		_, err := p.Store.Global(oauth.CodesCollection).UpdateMany(bg(), query.AllOf(),
			store.Update{Set: store.Doc{"session.expiresAt.authorize_code": time.Now().Add(-time.Second).UTC()}})
		require.NoError(t, err)
		_, err = conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.Equal(t, "invalid_grant", oauthError(t, err))
	})

	t.Run("a code exchange's refresh token expires", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		rec, err := p.Store.Global(oauth.RefreshCollection).Find(bg(), store.FindOptions{Filter: query.Eq("accessJti", jti(t, tok.AccessToken))})
		require.NoError(t, err)
		require.Len(t, rec, 1)
		exp, _ := rec[0]["expiresAt"].(time.Time)
		require.WithinDuration(t, time.Now().Add(30*24*time.Hour), exp, time.Hour, "the default lifetime, 30 days")
		_, err = p.Store.Global(oauth.RefreshCollection).Update(bg(), query.ID(rec[0]["_id"].(string)),
			store.Update{Set: store.Doc{"session.expiresAt.refresh_token": time.Now().Add(-time.Second).UTC()}})
		require.NoError(t, err)
		_, err = conf.TokenSource(bg(), expired(tok)).Token()
		require.Equal(t, "invalid_grant", oauthError(t, err))
	})

	t.Run("revoked tokens stop working on the API at once", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", tok.AccessToken, nil).Status) // caches "not revoked"
		st, _ := tokenPost(t, p, "/oauth/revoke", url.Values{"token": {tok.AccessToken}, "token_type_hint": {"access_token"}}, app.ClientID, app.Secret)
		require.Equal(t, 200, st)
		r := p.Do("GET", "/crm/consumers", tok.AccessToken, nil)
		require.Equal(t, 401, r.Status)
		require.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer")
		_, err = conf.TokenSource(bg(), expired(tok)).Token()
		require.Equal(t, "invalid_grant", oauthError(t, err), "revoking the access token ends its family")

		code, verifier = codeFor(t, p, conf)
		tok, err = conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		st, _ = tokenPost(t, p, "/oauth/revoke", url.Values{"token": {tok.RefreshToken}}, app.ClientID, app.Secret)
		require.Equal(t, 200, st)
		require.Equal(t, 401, p.Do("GET", "/crm/consumers", tok.AccessToken, nil).Status, "revoking the refresh token ends its access tokens")
		require.Contains(t, auditActions(t, p), "oauth.revoke")
	})

	t.Run("a refresh can narrow the scope, never widen it", func(t *testing.T) {
		code, verifier := codeFor(t, p, conf)
		tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "scope": {"crm.*"}}
		st, body := tokenPost(t, p, "/oauth/token", form, app.ClientID, app.Secret)
		require.Equal(t, 400, st)
		require.Equal(t, "invalid_scope", body["error"])
		form.Set("scope", "crm.consumers.view")
		st, body = tokenPost(t, p, "/oauth/token", form, app.ClientID, app.Secret)
		require.Equal(t, 200, st, body)
		require.Equal(t, "crm.consumers.view", body["scope"])
		require.Equal(t, 403, p.Do("POST", "/crm/consumers", body["access_token"].(string), map[string]any{"email": "x@example.com"}).Status)
	})

	t.Run("asking beyond the app's registered scopes", func(t *testing.T) {
		wide := app.config(p, "marketing.maillogs.view")
		pg := newBrowser(t, p).get(wide.AuthCodeURL("state-abc", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		require.NotNil(t, pg.Location, pg.Body)
		require.Equal(t, "invalid_scope", pg.Location.Query().Get("error"))
	})

	t.Run("deny answers access_denied with the state", func(t *testing.T) {
		b := newBrowser(t, p)
		cb := b.consent(b.signIn(conf.AuthCodeURL("state-deny", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), p.Admin.Email, adminPassword), "deny")
		require.Equal(t, "access_denied", cb.Query().Get("error"))
		require.Equal(t, "state-deny", cb.Query().Get("state"))
		require.Empty(t, cb.Query().Get("code"))
	})

	t.Run("screens cannot be framed, run no script and load nothing", func(t *testing.T) {
		pg := newBrowser(t, p).get(conf.AuthCodeURL("state-hdr", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		require.Equal(t, 200, pg.Status)
		csp := pg.Header.Get("Content-Security-Policy")
		require.Contains(t, csp, "default-src 'none'")
		require.Contains(t, csp, "frame-ancestors 'none'")
		require.Contains(t, csp, "style-src 'sha256-")
		require.Contains(t, csp, "form-action 'self' http://127.0.0.1:9")
		require.Equal(t, "DENY", pg.Header.Get("X-Frame-Options"))
		require.Equal(t, "no-store", pg.Header.Get("Cache-Control"))
		require.NotContains(t, pg.Body, "<script")
		require.NotContains(t, pg.Body, "src=")
		require.Contains(t, pg.Header.Get("Set-Cookie"), "HttpOnly")
		require.Contains(t, pg.Header.Get("Set-Cookie"), "SameSite=Lax")
	})

	t.Run("CSRF token missing or wrong", func(t *testing.T) {
		b := newBrowser(t, p)
		authURL := conf.AuthCodeURL("state-csrf", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
		login := b.get(authURL)
		for _, tok := range []string{"", "forged-token"} {
			pg := b.post(login.URL, url.Values{"csrf_token": {tok}, "action": {"login"}, "email": {p.Admin.Email}, "password": {adminPassword}})
			require.Equal(t, 403, pg.Status)
			require.Nil(t, pg.Location)
		}
		consent := b.post(login.URL, url.Values{"csrf_token": {login.csrf(t)}, "action": {"login"}, "email": {p.Admin.Email}, "password": {adminPassword}})
		require.Equal(t, 200, consent.Status)
		pg := b.post(consent.URL, url.Values{"action": {"approve"}})
		require.Equal(t, 403, pg.Status, "approve without the token")
		require.Nil(t, pg.Location)
		pg = b.post(consent.URL, url.Values{"action": {"approve"}, "csrf_token": {login.csrf(t)}})
		require.Equal(t, 403, pg.Status, "the pre-sign-in token died with the anonymous session")
	})

	t.Run("cross-customer use", func(t *testing.T) {
		other, otherAdmin := p.OtherCustomer("other")
		// A user of another customer cannot sign in at this customer's app.
		b := newBrowser(t, p)
		pg := b.signIn(conf.AuthCodeURL("state-cross", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), otherAdmin.Email, "pw-other")
		require.Equal(t, 401, pg.Status)
		// The other customer's app cannot redeem, refresh or revoke this customer's tokens.
		octx := tenant.WithCustomer(bg(), other.ID)
		oapp, osecret, err := p.Identity.CreateApp(octx, identityApp(app.Redirect))
		require.NoError(t, err)
		code, verifier := codeFor(t, p, conf)
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {app.Redirect}}
		st, body := tokenPost(t, p, "/oauth/token", form, oapp.ClientID, osecret)
		require.Equal(t, 400, st)
		require.Equal(t, "invalid_grant", body["error"])
		tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
		require.NoError(t, err, "the foreign attempt is refused before it touches the code")
		st, body = tokenPost(t, p, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}}, oapp.ClientID, osecret)
		require.Equal(t, 400, st)
		require.Equal(t, "invalid_grant", body["error"])
		tokenPost(t, p, "/oauth/revoke", url.Values{"token": {tok.AccessToken}}, oapp.ClientID, osecret)
		require.Equal(t, 200, p.Do("GET", "/crm/consumers", tok.AccessToken, nil).Status, "a foreign client cannot revoke it")
		// The token reads nothing of the other customer.
		oc := p.Do("POST", "/crm/consumers", p.TokenFor(other.ID, otherAdmin.ID, "crm.*"), map[string]any{"email": "b@example.com"})
		require.Equal(t, 201, oc.Status)
		require.Equal(t, 404, p.Do("GET", "/crm/consumers/"+oc.Payload()["_id"].(string), tok.AccessToken, nil).Status)
	})
}

func identityApp(redirect string) identity.AppInput {
	return identity.AppInput{Name: "Other app", RedirectURIs: []string{redirect}, Scopes: []string{"crm.*"}}
}

// jti is an access token's id.
func jti(t *testing.T, tok string) string {
	t.Helper()
	_, c := jwtParts(t, tok)
	return c["jti"].(string)
}

func expired(t *oauth2.Token) *oauth2.Token {
	c := *t
	c.Expiry = time.Now().Add(-time.Minute)
	return &c
}
