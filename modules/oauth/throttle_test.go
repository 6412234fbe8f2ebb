package oauth_test

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"platform/test/testenv"
)

// TestLoginThrottling: failed sign-ins slow down the address they come
// from, with growing waits (429 with Retry-After, even for the right
// password), per account and across accounts, but never lock the
// account's owner out from another address. The counts are in the store,
// shared by every replica. (The exact waits are in throttle_internal_test.)
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
	from := func(addr string) *browser {
		b := newBrowser(t, p)
		b.addr = addr
		return b
	}
	// guess makes attempts with wrong passwords: the throttle must answer
	// 429 with its message at least once and let at most max guesses be
	// checked. Past the free failures the waits double from 1 s, so the
	// seventh checked guess after them needs 63 s of waiting: more than
	// a few dozen quick attempts take even on a slow machine.
	guess := func(b *browser, emails func(i int) string, attempts, max int) {
		t.Helper()
		checked, throttled := 0, 0
		for i := range attempts {
			pg := try(b, emails(i), "guess"+strconv.Itoa(i))
			switch pg.Status {
			case 401:
				checked++
			case 429:
				throttled++
				require.NotEmpty(t, pg.Header.Get("Retry-After"))
				require.Contains(t, pg.Body, "Too many failed sign-ins. Wait")
			default:
				t.Fatalf("attempt %d answered %d", i, pg.Status)
			}
		}
		require.Positive(t, throttled, "never throttled")
		require.LessOrEqual(t, checked, max, "too many guesses were checked")
	}

	t.Run("per account and address", func(t *testing.T) {
		guess(from("203.0.113.9"), func(int) string { return "victim@example.com" }, 20, 4+6)
		require.Equal(t, 200, try(from("198.51.100.7"), "victim@example.com", "right-password").Status,
			"the owner signs in from another address at once")
	})

	t.Run("per client address", func(t *testing.T) {
		sprayer := from("203.0.113.77")
		guess(sprayer, func(i int) string { return "nobody" + strconv.Itoa(i) + "@example.com" }, 30, 21+6)
		require.Equal(t, 200, try(from("198.51.100.8"), p.Admin.Email, adminPassword).Status, "other addresses are not affected")
	})
	require.Contains(t, auditActions(t, p), "oauth.signin")
}
