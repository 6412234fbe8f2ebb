package oauth_test

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"platform/testenv"
)

// TestLoginThrottling: five wrong passwords lock the account (even the
// right password is refused, from any address) and twenty failures lock a
// client address; the counts are in the store, shared by every replica.
func TestLoginThrottling(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	_, _, err := p.Identity.EnsureUser(p.Ctx(), "victim@example.com", "Victim", "right-password", []string{"crm.*"})
	require.NoError(t, err)
	app := registerApp(t, p, true, "crm.*")
	authURL := app.config(p, "crm.consumers.view").AuthCodeURL("state-throttle", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))
	try := func(b *browser, email, pw string) *page {
		login := b.get(authURL)
		return b.post(login.URL, url.Values{"csrf_token": {login.csrf(t)}, "action": {"login"}, "email": {email}, "password": {pw}})
	}

	t.Run("per account", func(t *testing.T) {
		b := newBrowser(t, p)
		for i := 0; i < 5; i++ {
			require.Equal(t, 401, try(b, "victim@example.com", "guess"+strconv.Itoa(i)).Status)
		}
		other := newBrowser(t, p)
		other.addr = "198.51.100.7"
		pg := try(other, "victim@example.com", "right-password")
		require.Equal(t, 429, pg.Status)
		require.NotEmpty(t, pg.Header.Get("Retry-After"))
		require.Contains(t, pg.Body, "Too many failed sign-ins")
		require.Equal(t, 200, try(other, p.Admin.Email, adminPassword).Status, "other accounts are not affected")
	})

	t.Run("per client address", func(t *testing.T) {
		b := newBrowser(t, p)
		b.addr = "203.0.113.9"
		for i := 0; i < 20; i++ {
			require.Equal(t, 401, try(b, "nobody"+strconv.Itoa(i)+"@example.com", "guess").Status)
		}
		require.Equal(t, 429, try(b, p.Admin.Email, adminPassword).Status)
	})
	require.Contains(t, auditActions(t, p), "oauth.signin")
}
