package oauth_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"platform/test/testenv"
)

const adminPassword = "test-password" // testenv's seed

// testApp is an app registered through the developer API.
type testApp struct {
	ID, ClientID, Secret, Redirect string
}

// registerApp creates an app of the test customer through POST /developer/apps.
func registerApp(t *testing.T, p *testenv.Platform, public bool, scopes ...string) testApp {
	t.Helper()
	redirect := "http://127.0.0.1:9/cb/" + randomString(6)
	r := p.Do("POST", "/developer/apps", p.Token("developer.apps.*"), map[string]any{
		"name": "Test app", "redirect_uris": []string{redirect}, "scopes": scopes, "public": public,
	})
	require.Equal(t, 201, r.Status, string(r.Body))
	pl := r.Payload()
	a := testApp{ID: pl["_id"].(string), ClientID: pl["client_id"].(string), Redirect: redirect}
	if !public {
		a.Secret = pl["client_secret"].(string)
	}
	return a
}

func (a testApp) config(p *testenv.Platform, scopes ...string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: a.ClientID, ClientSecret: a.Secret, RedirectURL: a.Redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: p.URL + "/oauth/authorize", TokenURL: p.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader},
	}
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// browser is a minimal user agent: cookies, forms, and it stops at the
// first redirect that leaves the platform (the app's callback).
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
	addr string // sent as X-Forwarded-For (trusted from loopback): the client address
}

func newBrowser(t *testing.T, p *testenv.Platform) *browser {
	jar, _ := cookiejar.New(nil)
	b := &browser{t: t, base: p.URL, addr: "192.0.2." + randomDigit()}
	b.c = &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if !strings.HasPrefix(req.URL.String(), b.base) {
			return http.ErrUseLastResponse
		}
		req.Header.Set("X-Forwarded-For", b.addr)
		return nil
	}}
	return b
}

func randomDigit() string {
	var x [1]byte
	_, _ = rand.Read(x[:])
	return string(rune('1' + x[0]%9))
}

type page struct {
	Status   int
	Header   http.Header
	Body     string
	Location *url.URL // set when the answer redirects away from the platform
	URL      string   // where the page was served
}

func (b *browser) do(req *http.Request) *page {
	b.t.Helper()
	req.Header.Set("X-Forwarded-For", b.addr)
	res, err := b.c.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	pg := &page{Status: res.StatusCode, Header: res.Header, Body: string(body), URL: res.Request.URL.String()}
	if loc := res.Header.Get("Location"); loc != "" && res.StatusCode/100 == 3 {
		pg.Location, _ = url.Parse(loc)
	}
	return pg
}

func (b *browser) get(u string) *page {
	req, _ := http.NewRequest("GET", u, nil)
	return b.do(req)
}

func (b *browser) post(u string, form url.Values) *page {
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfRE = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func (pg *page) csrf(t *testing.T) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(pg.Body)
	require.NotNil(t, m, "no CSRF token on the page: %s", pg.Body)
	return m[1]
}

// signIn opens the authorize URL and signs in; it returns the consent page.
func (b *browser) signIn(authURL, email, password string) *page {
	b.t.Helper()
	login := b.get(authURL)
	require.Equal(b.t, 200, login.Status, login.Body)
	require.Contains(b.t, login.Body, `id="signin"`)
	return b.post(login.URL, url.Values{"csrf_token": {login.csrf(b.t)}, "action": {"login"}, "email": {email}, "password": {password}})
}

// consent answers the consent page and returns the redirect to the app.
func (b *browser) consent(consent *page, action string) *url.URL {
	b.t.Helper()
	require.Equal(b.t, 200, consent.Status, consent.Body)
	done := b.post(consent.URL, url.Values{"csrf_token": {consent.csrf(b.t)}, "action": {action}})
	require.NotNil(b.t, done.Location, "no redirect to the app: %d %s", done.Status, done.Body)
	return done.Location
}

// authorize runs sign-in and approval; it returns the app's callback URL.
func authorize(t *testing.T, p *testenv.Platform, authURL string) *url.URL {
	t.Helper()
	b := newBrowser(t, p)
	return b.consent(b.signIn(authURL, p.Admin.Email, adminPassword), "approve")
}

// codeFor runs the flow for the app and returns a code and its verifier.
func codeFor(t *testing.T, p *testenv.Platform, conf *oauth2.Config) (code, verifier string) {
	t.Helper()
	verifier = oauth2.GenerateVerifier()
	state := randomString(12)
	cb := authorize(t, p, conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)))
	require.Equal(t, state, cb.Query().Get("state"))
	require.NotEmpty(t, cb.Query().Get("code"), cb.String())
	return cb.Query().Get("code"), verifier
}

// oauthError returns the RFC 6749 error code of a failed exchange.
func oauthError(t *testing.T, err error) string {
	t.Helper()
	require.Error(t, err)
	var re *oauth2.RetrieveError
	require.True(t, errors.As(err, &re), "not a token endpoint error: %v", err)
	return re.ErrorCode
}

// tokenPost posts a form to the token endpoint and decodes the JSON answer.
func tokenPost(t *testing.T, p *testenv.Platform, path string, form url.Values, user, pass string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", p.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// jwtParts decodes a JWT's header and claims without checking it.
func jwtParts(t *testing.T, tok string) (map[string]any, map[string]any) {
	t.Helper()
	parts := strings.Split(tok, ".")
	require.Len(t, parts, 3)
	dec := func(s string) map[string]any {
		b, err := base64.RawURLEncoding.DecodeString(s)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	return dec(parts[0]), dec(parts[1])
}

func bg() context.Context { return context.Background() }
