package e2e

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// consolePage signs in to the console of d as the seeded admin, through
// the real sign-in and consent screens as a browser would, and answers
// the page at path.
func consolePage(t *testing.T, d *devProcess, path string) string {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar}
	body, res := fetchPage(t, c, http.MethodGet, d.baseURL()+"/console/signin?workspace=demo", nil)
	authorize := res.Request.URL.String()
	body, _ = fetchPage(t, c, http.MethodPost, authorize, url.Values{"csrf_token": {csrfOf(t, body)}, "action": {"login"},
		"email": {"admin@example.com"}, "password": {"e2e-password"}})
	body, res = fetchPage(t, c, http.MethodPost, authorize, url.Values{"csrf_token": {csrfOf(t, body)}, "action": {"approve"}})
	require.Equal(t, "/console/callback", res.Request.URL.Path, body)
	page, _ := fetchPage(t, c, http.MethodGet, d.baseURL()+path, nil)
	return page
}

func fetchPage(t *testing.T, c *http.Client, method, u string, form url.Values) (string, *http.Response) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s %s: %s", method, u, raw)
	return string(raw), res
}

func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(body)
	require.NotNil(t, m, "no CSRF token in the page: %s", body)
	return m[1]
}
