package oauth_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"platform/kernel/auth"
	"platform/test/testenv"
)

// TestAdminOnlyRightsComeFromTheAdminRole: config.credentials.decrypt and
// .delete reach a token only when the user holds the admin role and the
// app asks for them by name; config.* (in a role, in the request, in the
// app's registration) never carries them, nor does naming them in
// another role.
func TestAdminOnlyRightsComeFromTheAdminRole(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	ctx := p.Ctx()
	require.NoError(t, p.Identity.EnsureRole(ctx, "ops", []string{"config.*", "config.credentials.decrypt", "config.credentials.delete"}))
	ops, _, err := p.Identity.EnsureUser(ctx, "ops@example.com", "Olga Ops", "ops-password", nil)
	require.NoError(t, err)
	require.NoError(t, p.Identity.SetRoles(ctx, ops.ID, []string{"ops"}))
	cred := p.Do("POST", "/config/credentials", p.Token("config.credentials.create"), map[string]any{"name": "k", "type": "api-key", "credentials": map[string]any{"key": "v"}})
	require.Equal(t, 201, cred.Status, string(cred.Body))
	decrypt := "/config/credentials/" + cred.Payload()["_id"].(string) + "/actions/decrypt"

	app := registerApp(t, p, false, "config.*", "config.credentials.decrypt", "config.credentials.delete")
	grant := func(email, password string, scopes ...string) *oauth2.Token {
		conf := app.config(p, scopes...)
		verifier := oauth2.GenerateVerifier()
		b := newBrowser(t, p)
		cb := b.consent(b.signIn(conf.AuthCodeURL(randomString(12), oauth2.S256ChallengeOption(verifier)), email, password), "approve")
		tok, err := conf.Exchange(bg(), cb.Query().Get("code"), oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		return tok
	}
	scopes := func(tok *oauth2.Token) []string { return strings.Fields(tok.Extra("scope").(string)) }
	adminOnly := []string{"config.credentials.decrypt", "config.credentials.delete"}

	admin := grant(p.Admin.Email, adminPassword, "config.*", "config.credentials.decrypt", "config.credentials.delete")
	for _, r := range adminOnly {
		require.Contains(t, scopes(admin), r, "the admin role gives it when asked by name")
	}
	require.Equal(t, 200, p.Do("POST", decrypt, admin.AccessToken, nil).Status)

	byWildcard := grant(p.Admin.Email, adminPassword, "config.*")
	require.Contains(t, scopes(byWildcard), "config.credentials.view")
	require.Equal(t, 403, p.Do("POST", decrypt, byWildcard.AccessToken, nil).Status, "a request for config.* does not carry it")

	notAdmin := grant("ops@example.com", "ops-password", "config.*", "config.credentials.decrypt", "config.credentials.delete")
	require.Contains(t, scopes(notAdmin), "config.credentials.edit", "config.* in the role gives the ordinary rights")
	for _, r := range adminOnly {
		require.False(t, slices.Contains(scopes(notAdmin), r), "%s: only the admin role gives it, not another role naming it", r)
	}
	require.Equal(t, 403, p.Do("POST", decrypt, notAdmin.AccessToken, nil).Status)
	require.Equal(t, 403, p.Do("DELETE", strings.TrimSuffix(decrypt, "/actions/decrypt"), notAdmin.AccessToken, nil).Status)

	rights, err := p.Identity.EffectiveRights(ctx, p.Admin)
	require.NoError(t, err)
	require.Subset(t, rights, auth.AdminOnlyRights())
}
