package console_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// browserless is a cookie-keeping HTTP client signed in to the console
// through the real OAuth screens (sign-in, consent), as a browser would.
type browserless struct {
	t    *testing.T
	p    *testenv.Platform
	http *http.Client
	csrf string
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func newBrowserless(t *testing.T, p *testenv.Platform) *browserless {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browserless{t: t, p: p, http: &http.Client{Jar: jar}}
}

// signIn goes through the whole flow and ends on the console's home page.
func (b *browserless) signIn(workspace, email, password string) {
	t := b.t
	t.Helper()
	res, body := b.get("/console/signin?workspace=" + url.QueryEscape(workspace))
	require.Equal(t, 200, res.StatusCode, body)
	require.Contains(t, body, `name="password"`, "the platform's sign-in screen")
	authorize := res.Request.URL.String()
	res, body = b.post(authorize, url.Values{"csrf_token": {csrfOf(t, body)}, "action": {"login"}, "email": {email}, "password": {password}})
	require.Equal(t, 200, res.StatusCode, body)
	require.Contains(t, body, `value="approve"`, "the consent screen")
	res, body = b.post(authorize, url.Values{"csrf_token": {csrfOf(t, body)}, "action": {"approve"}})
	require.Equal(t, 200, res.StatusCode, body)
	require.Equal(t, "/console/callback", res.Request.URL.Path)
	require.Contains(t, body, "Signed in")
	res, body = b.get("/console/")
	require.Equal(t, 200, res.StatusCode, body)
	b.csrf = csrfOf(t, body)
}

func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(body)
	require.NotNil(t, m, "no CSRF token in the page: %s", body)
	return m[1]
}

func (b *browserless) url(path string) string {
	if strings.HasPrefix(path, "http") {
		return path
	}
	return b.p.URL + path
}

func (b *browserless) get(path string) (*http.Response, string) {
	b.t.Helper()
	res, err := b.http.Get(b.url(path))
	require.NoError(b.t, err)
	return res, readAll(b.t, res)
}

func (b *browserless) post(path string, form url.Values, header ...string) (*http.Response, string) {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.url(path), strings.NewReader(form.Encode()))
	require.NoError(b.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := b.http.Do(req)
	require.NoError(b.t, err)
	return res, readAll(b.t, res)
}

// postForm posts a console form with the session's CSRF token.
func (b *browserless) postForm(path string, form url.Values) (*http.Response, string) {
	form.Set("csrf_token", b.csrf)
	return b.post(path, form)
}

func readAll(t *testing.T, res *http.Response) string {
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(raw)
}
