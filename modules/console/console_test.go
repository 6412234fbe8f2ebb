package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/console"
	"platform/modules/identity"
	"platform/test/testenv"
)

const adminPassword = "test-password"

// TestMain lets the pipeline's transform step run in a sandbox child.
func TestMain(m *testing.M) { testenv.SandboxMain(m) }

// TestConsole shares one platform (with a worker: the browser test re-runs
// a delivery and runs a pipeline) between the console's tests.
func TestConsole(t *testing.T) {
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.OutboundAllow = []string{"127.0.0.1"}
		c.Console.TemporalUIURL = "http://temporal-ui.example"
	}})
	t.Run("security headers", func(t *testing.T) { securityHeaders(t, p.For(t)) })
	t.Run("signed out", func(t *testing.T) { signedOut(t, p.For(t)) })
	t.Run("CSRF", func(t *testing.T) { csrf(t, p.For(t)) })
	t.Run("rights", func(t *testing.T) { rights(t, p.For(t)) })
	t.Run("other customer", func(t *testing.T) { otherCustomer(t, p.For(t)) })
	t.Run("refresh and sign-out", func(t *testing.T) { refreshAndSignOut(t, p.For(t)) })
	t.Run("console app", func(t *testing.T) { consoleApp(t, p.For(t)) })
	t.Run("edit and rotate", func(t *testing.T) { editAndRotate(t, p.For(t)) })
	t.Run("console host", func(t *testing.T) { consoleHost(t, p.For(t)) })
	t.Run("chromium", func(t *testing.T) { inChromium(t, p.For(t)) })
}

// securityHeaders: a strict CSP (no script at all, no framing), and the
// other headers, on every console page.
func securityHeaders(t *testing.T, p *testenv.Platform) {
	b := newBrowserless(t, p)
	for _, path := range []string{"/console/signin", "/console/", "/console/r/crm/consumers", "/console/nowhere"} {
		res, body := b.get(path)
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'none'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self' " + p.URL} {
			require.Contains(t, csp, want, path)
		}
		require.Equal(t, "DENY", res.Header.Get("X-Frame-Options"), path)
		require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), path)
		require.Equal(t, "no-store", res.Header.Get("Cache-Control"), path)
		require.Equal(t, "same-origin", res.Header.Get("Cross-Origin-Opener-Policy"), path)
		require.NotContains(t, strings.ToLower(body), "<script", path)
		require.NotContains(t, strings.ToLower(body), "style=", path)
	}
	res, body := b.get("/console/static/console.css")
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "text/css; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, body, "body{")
}

// signedOut: without a session every page asks to sign in and nothing is
// read; the sign-in starts the platform's own flow with PKCE S256.
func signedOut(t *testing.T, p *testenv.Platform) {
	b := newBrowserless(t, p)
	res, body := b.get("/console/r/crm/consumers")
	require.Equal(t, 401, res.StatusCode)
	require.Contains(t, body, "Sign in to continue")
	require.Contains(t, body, `name="return" value="/r/crm/consumers"`)
	b.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, _ = b.get("/console/signin?workspace=demo")
	require.Equal(t, 303, res.StatusCode)
	to, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "/oauth/authorize", to.Path)
	q := to.Query()
	require.Equal(t, "S256", q.Get("code_challenge_method"))
	require.NotEmpty(t, q.Get("code_challenge"))
	require.Equal(t, p.URL+"/console/callback", q.Get("redirect_uri"))
	require.True(t, strings.HasPrefix(q.Get("client_id"), "oac_"))
	res, body = b.get("/console/signin?workspace=no-such-workspace")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "no workspace has that name")
	res, body = b.get("/console/callback?code=forged&state=forged")
	require.Equal(t, 400, res.StatusCode)
	require.Contains(t, body, "expired or was started in another browser")
}

// csrf: a form post without the session's token, with a wrong one, or from
// another origin does nothing.
func csrf(t *testing.T, p *testenv.Platform) {
	b := newBrowserless(t, p)
	b.signIn("demo", p.Admin.Email, adminPassword)
	form := func(email string) url.Values { return url.Values{"v.email": {email}} }
	res, _ := b.post("/console/r/crm/consumers", form("csrf-none@example.com"))
	require.Equal(t, 403, res.StatusCode)
	res, _ = b.post("/console/r/crm/consumers", url.Values{"v.email": {"csrf-wrong@example.com"}, "csrf_token": {"wrong"}})
	require.Equal(t, 403, res.StatusCode)
	res, _ = b.post("/console/r/crm/consumers", url.Values{"v.email": {"csrf-origin@example.com"}, "csrf_token": {b.csrf}}, "Origin", "http://evil.example")
	require.Equal(t, 403, res.StatusCode)
	tok := p.Token("crm.consumers.view")
	require.Empty(t, p.Do("GET", "/crm/consumers?filter="+url.QueryEscape(`{"email":{"$regex":"^csrf-"}}`), tok, nil).List())
	res, body := b.postForm("/console/r/crm/consumers", form("csrf-ok@example.com"))
	require.Equal(t, 200, res.StatusCode, body)
	require.Contains(t, body, "csrf-ok@example.com")
	require.Len(t, p.Do("GET", "/crm/consumers?email=csrf-ok@example.com", tok, nil).List(), 1)
}

// rights: a user who may only see consumers sees nothing else in the
// navigation, no create or delete buttons, and is refused when posting
// anyway (the console calls the API with the user's own token).
func rights(t *testing.T, p *testenv.Platform) {
	ctx := tenant.WithCustomer(t.Context(), p.Customer.ID)
	_, _, err := p.Identity.EnsureUser(ctx, "viewer@example.com", "Viewer", "viewer-password", []string{"crm.consumers.view"})
	require.NoError(t, err)
	admin := p.Token("crm.*")
	r := p.Do("POST", "/crm/consumers", admin, map[string]any{"email": "seen@example.com"})
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Payload()["_id"].(string)

	b := newBrowserless(t, p)
	b.signIn("demo", "viewer@example.com", "viewer-password")
	_, home := b.get("/console/")
	require.Contains(t, home, "/console/r/crm/consumers")
	require.NotContains(t, home, "/console/r/automation/webhooks")
	require.NotContains(t, home, "/console/r/developer/apps")
	res, list := b.get("/console/r/crm/consumers")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, list, "seen@example.com")
	require.NotContains(t, list, `id="new"`)
	_, rec := b.get("/console/r/crm/consumers/" + id)
	require.NotContains(t, rec, `id="edit"`)
	require.NotContains(t, rec, `id="delete"`)
	require.NotContains(t, rec, `id="action-anonymize"`)
	for _, path := range []string{"/console/r/crm/consumers/new", "/console/r/automation/webhooks", "/console/r/crm/consumers/" + id + "/edit"} {
		res, _ := b.get(path)
		require.Equal(t, 403, res.StatusCode, path)
	}
	res, _ = b.postForm("/console/r/crm/consumers", url.Values{"v.email": {"viewer-made@example.com"}})
	require.Equal(t, 403, res.StatusCode)
	res, _ = b.postForm("/console/r/crm/consumers/"+id+"/delete", url.Values{})
	require.Equal(t, 403, res.StatusCode)
	require.Equal(t, 200, p.Do("GET", "/crm/consumers/"+id, admin, nil).Status, "still there")
	require.Empty(t, p.Do("GET", "/crm/consumers?email=viewer-made@example.com", admin, nil).List())
}

// otherCustomer: a second customer's records never show, not even by id.
func otherCustomer(t *testing.T, p *testenv.Platform) {
	other, otherAdmin := p.OtherCustomer("acme-console")
	r := p.Do("POST", "/crm/consumers", p.TokenFor(other.ID, otherAdmin.ID, "crm.*"), map[string]any{"email": "hidden@acme.example"})
	require.Equal(t, 201, r.Status, string(r.Body))
	hidden := r.Payload()["_id"].(string)

	b := newBrowserless(t, p)
	b.signIn("demo", p.Admin.Email, adminPassword)
	_, list := b.get("/console/r/crm/consumers?limit=100")
	require.NotContains(t, list, "hidden@acme.example")
	res, body := b.get("/console/r/crm/consumers/" + hidden)
	require.Equal(t, 404, res.StatusCode)
	require.NotContains(t, body, "hidden@acme.example")
	res, body = b.get("/console/r/crm/consumers?filter=" + url.QueryEscape(`{"email":"hidden@acme.example"}`))
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, `id="total">0 records<`)
	require.NotContains(t, body, hidden)

	// The other customer's admin signs in to its own workspace and sees it.
	o := newBrowserless(t, p)
	o.signIn("acme-console", otherAdmin.Email, "pw-acme-console")
	_, list = o.get("/console/r/crm/consumers")
	require.Contains(t, list, "hidden@acme.example")
	require.NotContains(t, list, "seen@example.com")
}

// refreshAndSignOut: an access token about to expire is refreshed once,
// even by parallel requests (the session counts it); signing out revokes
// the grant and forgets the session.
func refreshAndSignOut(t *testing.T, p *testenv.Platform) {
	b := newBrowserless(t, p)
	b.signIn("demo", p.Admin.Email, adminPassword)
	sessions := p.Store.Global(console.SessionsCollection)
	docs, err := sessions.Find(t.Context(), store.FindOptions{Filter: query.Eq("email", p.Admin.Email)})
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	for _, d := range docs {
		_, err := sessions.Update(t.Context(), query.ID(d["_id"].(string)), store.Update{Set: store.Doc{"accessExp": time.Now().UTC().Add(-time.Minute)}})
		require.NoError(t, err)
	}
	// Four pages at once find the token expiring: one refreshes, the
	// others wait for it (a refresh token presented twice would revoke the
	// whole grant).
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i := range statuses {
		wg.Go(func() {
			res, err := b.http.Get(p.URL + "/console/r/crm/consumers")
			if err == nil {
				statuses[i] = res.StatusCode
				res.Body.Close()
			}
		})
	}
	wg.Wait()
	require.Equal(t, []int{200, 200, 200, 200}, statuses)
	refreshed := 0
	docs, err = sessions.Find(t.Context(), store.FindOptions{Filter: query.Eq("email", p.Admin.Email)})
	require.NoError(t, err)
	for _, d := range docs {
		if d["gen"] == int64(1) {
			refreshed++
			require.True(t, d["accessExp"].(time.Time).After(time.Now()))
			require.NotContains(t, d["access"], ".", "tokens are sealed")
		}
		require.NotEqual(t, int64(2), d["gen"], "refreshed twice")
	}
	require.Equal(t, 1, refreshed)

	res, body := b.postForm("/console/signout", url.Values{})
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "Sign in to the console")
	res, _ = b.get("/console/r/crm/consumers")
	require.Equal(t, 401, res.StatusCode)
}

// consoleApp: a sign-in leaves the customer's console app as it is when
// nothing changed (no write per sign-in), and puts back what an admin
// changed that the console needs.
func consoleApp(t *testing.T, p *testenv.Platform) {
	ctx := tenant.WithCustomer(t.Context(), p.Customer.ID)
	apps := p.Store.Collection(identity.Apps)
	stored := func() store.Doc {
		docs, err := apps.Find(ctx, store.FindOptions{Filter: query.Eq("name", "Admin console (built in)")})
		require.NoError(t, err)
		require.Len(t, docs, 1, "one console app per customer")
		return docs[0]
	}
	newBrowserless(t, p).signIn("demo", p.Admin.Email, adminPassword)
	before := stored()
	newBrowserless(t, p).signIn("demo", p.Admin.Email, adminPassword)
	require.Equal(t, before["updatedAt"], stored()["updatedAt"], "an unchanged app is not written again")

	_, err := apps.Update(ctx, query.ID(before["_id"].(string)), store.Update{Set: store.Doc{identity.FieldRedirectURIs: store.List([]string{"https://elsewhere.example/cb"})}})
	require.NoError(t, err)
	newBrowserless(t, p).signIn("demo", p.Admin.Email, adminPassword)
	require.Equal(t, []string{p.URL + "/console/callback"}, store.Strings(stored()[identity.FieldRedirectURIs]), "the redirect URI is put back")
}

// editAndRotate: an edit sends only the form's fields (a merge patch; an
// emptied input removes the value); an app's rotated secret is shown once
// and works, and the console never shows it again.
func editAndRotate(t *testing.T, p *testenv.Platform) {
	admin := p.Token("crm.*", "developer.apps.*")
	r := p.Do("POST", "/crm/consumers", admin, map[string]any{"email": "edit@example.com", "first_name": "Ed", "last_name": "Before"})
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Payload()["_id"].(string)
	b := newBrowserless(t, p)
	b.signIn("demo", p.Admin.Email, adminPassword)
	res, body := b.get("/console/r/crm/consumers/" + id + "/edit")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, `value="Before"`)
	res, body = b.postForm("/console/r/crm/consumers/"+id, url.Values{"v.email": {"edit@example.com"}, "v.first_name": {"Edwina"}, "v.last_name": {""}})
	require.Equal(t, 200, res.StatusCode, body)
	got := p.Do("GET", "/crm/consumers/"+id, admin, nil).Payload()
	require.Equal(t, "Edwina", got["first_name"])
	require.Nil(t, got["last_name"])
	res, body = b.postForm("/console/r/crm/consumers/"+id, url.Values{"v.email": {"still-not-an-email"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, `id="err-email"`)

	r = p.Do("POST", "/developer/apps", admin, map[string]any{"name": "Rotated", "redirect_uris": []string{"https://app.example/cb"}, "scopes": []string{"crm.*"}})
	require.Equal(t, 201, r.Status, string(r.Body))
	app := r.Payload()
	res, body = b.postForm("/console/r/developer/apps/"+app["_id"].(string)+"/actions/rotate-secret", url.Values{})
	require.Equal(t, 200, res.StatusCode, body)
	m := regexp.MustCompile(`id="once-client_secret">(oas_[^<]+)<`).FindStringSubmatch(body)
	require.NotNil(t, m, body)
	require.NotEqual(t, app["client_secret"], m[1])
	conf := clientcredentials.Config{ClientID: app["client_id"].(string), ClientSecret: m[1], TokenURL: p.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}
	_, err := conf.Token(t.Context())
	require.NoError(t, err, "the secret shown once works")
	_, body = b.get("/console/r/developer/apps/" + app["_id"].(string))
	require.NotContains(t, body, m[1])

	// An action whose answer is not the record (a run started) shows it.
	r = p.Do("POST", "/automation/pipelines", p.Token("automation.*"), map[string]any{"name": "from the console",
		"steps": []any{map[string]any{"id": "t", "type": "transform", "expression": `"hi"`}}})
	require.Equal(t, 201, r.Status, string(r.Body))
	res, body = b.postForm("/console/r/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", url.Values{"v.input": {`{"name":"Ada"}`}})
	require.Equal(t, 200, res.StatusCode, body)
	require.Contains(t, body, `id="answer"`)
	require.Contains(t, body, `id="v-run"`)
	res, body = b.postForm("/console/r/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", url.Values{"v.input": {`{"name":`}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, `id="err-input"`)
}

// consoleHost: console.<platform domain> serves the console, by sending
// the browser to its one configured address (its cookies and the sign-in's
// redirect URI belong to that address).
func consoleHost(t *testing.T, p *testenv.Platform) {
	req, err := http.NewRequest(http.MethodGet, p.URL+"/r/crm/consumers?limit=10", nil)
	require.NoError(t, err)
	req.Host = "console." + p.Config.PlatformDomain
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, p.URL+"/console/r/crm/consumers?limit=10", res.Header.Get("Location"))
	require.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
}
