package oauth_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"platform/test/testenv"
)

// TestCodeFlowWithOAuth2Client drives the whole flow with
// golang.org/x/oauth2 as the app: PKCE S256, sign-in and consent, code
// exchange, an API call inside and one outside the scope, userinfo,
// refresh rotation, then the audit trail of it all.
func TestCodeFlowWithOAuth2Client(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	app := registerApp(t, p, false, "crm.*", "profile", "email")
	conf := app.config(p, "crm.consumers.*", "profile", "email")

	code, verifier := codeFor(t, p, conf)
	tok, err := conf.Exchange(bg(), code, oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	require.Equal(t, "Bearer", tok.Type())
	require.NotEmpty(t, tok.RefreshToken)
	require.InDelta(t, 3600, tok.ExpiresIn, 2)
	wantScope := "crm.consumers.create crm.consumers.delete crm.consumers.edit crm.consumers.view profile email"
	require.Equal(t, wantScope, tok.Extra("scope"), "wildcards expanded, frozen in the grant")

	h, c := jwtParts(t, tok.AccessToken)
	require.Equal(t, "at+jwt", h["typ"])
	require.Equal(t, "ES256", h["alg"])
	require.Equal(t, p.URL, c["iss"])
	require.Equal(t, p.Admin.ID, c["sub"])
	require.Equal(t, app.ClientID, c["client_id"])
	require.Equal(t, p.Customer.ID, c["customer"])
	require.Equal(t, wantScope, c["scope"])
	for _, k := range []string{"aud", "exp", "iat", "jti"} {
		require.Contains(t, c, k)
	}

	r := p.Do("POST", "/crm/consumers", tok.AccessToken, map[string]any{"email": "ada@example.com"})
	require.Equal(t, 201, r.Status, string(r.Body))
	r = p.Do("GET", "/crm/tasks", tok.AccessToken, nil)
	require.Equal(t, 403, r.Status, "outside the granted scope although the admin holds every right")

	ui := p.Do("GET", "/oauth/userinfo", tok.AccessToken, nil)
	require.Equal(t, 200, ui.Status, string(ui.Body))
	require.Contains(t, string(ui.Body), `"email":"admin@example.com"`)
	require.Contains(t, string(ui.Body), `"sub":"`+p.Admin.ID+`"`)

	old := *tok
	tok.Expiry = time.Now().Add(-time.Minute) // make the source refresh
	fresh, err := conf.TokenSource(bg(), tok).Token()
	require.NoError(t, err)
	require.NotEqual(t, old.RefreshToken, fresh.RefreshToken, "refresh tokens rotate")
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", fresh.AccessToken, nil).Status)

	records := auditActions(t, p)
	for _, a := range []string{"oauth.signin", "oauth.consent", "oauth.token"} {
		require.Contains(t, records, a)
	}
}

// auditActions lists the actions in the customer's audit trail.
func auditActions(t *testing.T, p *testenv.Platform) []string {
	t.Helper()
	r := p.Do("GET", "/audit/auditrecords?limit=500", p.Token("audit.auditrecords.view"), nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var out []string
	for _, rec := range r.List() {
		out = append(out, rec["action"].(string))
	}
	return out
}

// TestClientCredentials: a confidential app acts for its customer alone,
// with its scopes ∩ the package, expanded; a public app may not.
func TestClientCredentials(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	app := registerApp(t, p, false, "crm.consumers.*", "crm.notes.view")
	cc := clientcredentials.Config{ClientID: app.ClientID, ClientSecret: app.Secret, TokenURL: p.URL + "/oauth/token"}
	tok, err := cc.Token(bg())
	require.NoError(t, err)
	require.Equal(t, "crm.consumers.create crm.consumers.delete crm.consumers.edit crm.consumers.view crm.notes.view", tok.Extra("scope"))
	_, c := jwtParts(t, tok.AccessToken)
	require.Equal(t, app.ClientID, c["sub"])
	require.Nil(t, c["uid"])
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", tok.AccessToken, nil).Status)
	require.Equal(t, 403, p.Do("POST", "/crm/notes", tok.AccessToken, map[string]any{"body": "x"}).Status)
	require.Equal(t, 403, p.Do("GET", "/oauth/userinfo", tok.AccessToken, nil).Status, "no user behind the token")

	cc.Scopes = []string{"crm.tasks.view"}
	_, err = cc.Token(bg())
	require.Equal(t, "invalid_scope", oauthError(t, err), "beyond the app's registered scopes")

	pub := registerApp(t, p, true, "crm.*")
	st, body := tokenPost(t, p, "/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {pub.ClientID}}, "", "")
	require.Equal(t, 400, st)
	require.Contains(t, []string{"unauthorized_client", "invalid_grant"}, body["error"])
}

// TestPackageAndRightsLimitTheGrant: the grant is requested ∩ the user's
// rights (through roles) ∩ the customer's package at consent time.
func TestPackageAndRightsLimitTheGrant(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	ctx := p.Ctx()
	require.NoError(t, p.Identity.EnsureRole(ctx, "sales", []string{"crm.consumers.*", "crm.tasks.view"}))
	u, _, err := p.Identity.EnsureUser(ctx, "sales@example.com", "Sam Sales", "sales-password", nil)
	require.NoError(t, err)
	require.NoError(t, p.Identity.SetRoles(ctx, u.ID, []string{"sales"}))
	require.NoError(t, p.Identity.SetPackage(bg(), p.Customer.ID, []string{"crm.consumers.view", "crm.consumers.edit", "crm.tasks.*", "developer.*", "audit.*"}))

	app := registerApp(t, p, true, "crm.*", "email")
	conf := app.config(p, "crm.*", "email")
	verifier := oauth2.GenerateVerifier()
	b := newBrowser(t, p)
	consent := b.signIn(conf.AuthCodeURL("state-123", oauth2.S256ChallengeOption(verifier)), "sales@example.com", "sales-password")
	require.Contains(t, consent.Body, "Consumers: see, change")
	require.Contains(t, consent.Body, "Tasks: see")
	require.NotContains(t, consent.Body, "delete")
	cb := b.consent(consent, "approve")
	tok, err := conf.Exchange(bg(), cb.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	require.Equal(t, "crm.consumers.edit crm.consumers.view crm.tasks.view email", tok.Extra("scope"))
	granted := strings.Fields(tok.Extra("scope").(string))
	require.False(t, slices.Contains(granted, "crm.consumers.delete"), "the package does not include it")
}

// TestTokenTypeIsWrittenAsSpecified: every grant answers token_type
// "Bearer", the form the specification writes (golang.org/x/oauth2 and
// oauth4webapi normalise the case, so the raw answer is read here).
func TestTokenTypeIsWrittenAsSpecified(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	app := registerApp(t, p, false, "crm.*")
	code, verifier := codeFor(t, p, app.config(p, "crm.consumers.view"))
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {app.Redirect}}
	st, body := tokenPost(t, p, "/oauth/token", form, app.ClientID, app.Secret)
	require.Equal(t, 200, st, body)
	require.Equal(t, "Bearer", body["token_type"], "authorization_code")

	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {body["refresh_token"].(string)}}
	st, body = tokenPost(t, p, "/oauth/token", refresh, app.ClientID, app.Secret)
	require.Equal(t, 200, st, body)
	require.Equal(t, "Bearer", body["token_type"], "refresh_token")

	st, body = tokenPost(t, p, "/oauth/token", url.Values{"grant_type": {"client_credentials"}}, app.ClientID, app.Secret)
	require.Equal(t, 200, st, body)
	require.Equal(t, "Bearer", body["token_type"], "client_credentials")
}
