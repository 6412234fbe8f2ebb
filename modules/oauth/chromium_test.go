package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	chromium "platform/test/browser"
	"platform/test/testenv"
)

// TestConsentPageInChromium: a real browser signs in on the server-rendered
// page (its inline CSS allowed by the strict CSP), approves, and lands on
// the app's redirect URI with the code and the state; the code works.
func TestConsentPageInChromium(t *testing.T) {
	t.Parallel()
	ctx := chromium.New(t)
	landed := make(chan url.Values, 1)
	appSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callback" {
			select {
			case landed <- r.URL.Query():
			default:
			}
		}
		_, _ = w.Write([]byte("<!doctype html><title>App</title><p id=done>signed in</p>"))
	}))
	t.Cleanup(appSrv.Close)

	p := testenv.NewPlatform(t, testenv.Options{})
	r := p.Do("POST", "/developer/apps", p.Token("developer.apps.*"), map[string]any{
		"name": "Browser app", "redirect_uris": []string{appSrv.URL + "/callback"}, "scopes": []string{"crm.*", "email"}, "public": true,
	})
	require.Equal(t, 201, r.Status, string(r.Body))
	conf := &oauth2.Config{ClientID: r.Payload()["client_id"].(string), RedirectURL: appSrv.URL + "/callback", Scopes: []string{"crm.consumers.*", "email"},
		Endpoint: oauth2.Endpoint{AuthURL: p.URL + "/oauth/authorize", TokenURL: p.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	verifier, state := oauth2.GenerateVerifier(), "browser-state-42"

	err := chromedp.Do(ctx,
		chromedp.Navigate(conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))),
		chromedp.WaitVisible(chromedp.ID("email")),
	)
	require.NoError(t, err)
	screenshot(t, ctx, "signin.png")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("email"), p.Admin.Email),
		chromedp.SendKeys(chromedp.ID("password"), adminPassword),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID("approve")),
	)
	require.NoError(t, err)
	screenshot(t, ctx, "consent.png")
	consentText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	require.NoError(t, err)
	buttonColour, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('#approve')).backgroundColor`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("done"))))
	finalURL, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Contains(t, consentText, "Browser app wants to use your account")
	require.Contains(t, consentText, "CRM")
	require.Contains(t, consentText, "Consumers: see, create, change, delete")
	require.Contains(t, consentText, "Your e-mail address")
	require.Equal(t, "rgb(29, 78, 216)", buttonColour, "the inline stylesheet is allowed by the CSP hash")

	var q url.Values
	select {
	case q = <-landed:
	case <-time.After(10 * time.Second):
		t.Fatal("the browser never reached the app's redirect URI")
	}
	require.True(t, strings.HasPrefix(finalURL, appSrv.URL+"/callback?"), finalURL)
	require.Equal(t, state, q.Get("state"))
	tok, err := conf.Exchange(bg(), q.Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	require.Equal(t, 200, p.Do("GET", "/crm/consumers", tok.AccessToken, nil).Status)
}

// screenshot saves the page to $OAUTH_SCREENSHOTS (when set), to look at.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("OAUTH_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
}
