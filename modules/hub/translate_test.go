package hub_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/kernel/translate/translatetest"
	"platform/test/apitest"
	"platform/test/testenv"
)

// TestTranslateAction runs the translate action against a local server
// that speaks DeepL's API v2, through the outbound guard.
func TestTranslateAction(t *testing.T) {
	srv := translatetest.New(t)
	f := &hubFixture{apitest.New(t, apitest.Options{Modules: []string{"hub"}, Rights: []string{"hub.*"}, Collections: hubCollections,
		Platform: testenv.Options{Configure: func(c *settings.Config) {
			c.TranslateURL, c.TranslateKey, c.OutboundAllow = srv.URL(), srv.Key, []string{"127.0.0.1"}
		}}})}
	page := func(f *hubFixture) apitest.IDs {
		kb := f.base()
		return apitest.IDs{"kb": kb, "p": f.page(kb, "intro", map[string]any{
			"title": "Getting started", "body": "# Hello world\n\nRun `make dev` and see [the guide](wiki:" + kb + "/intro).\n\n```sh\necho hi\n```\n"})}
	}
	apitest.Run(t, f, []hubScenario{
		{Name: "a translated page", Given: page, Method: "POST", Path: "/hub/wikipages/{p}/actions/translate", Body: map[string]any{"targetLocale": "de"},
			Status: 200, Events: []string{"wikipages.created", "wikipages.translated"},
			Then: func(f *hubFixture, v apitest.IDs, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.T, "intro-de", p["slug"])
				assert.Equal(f.T, "de", p["locale"])
				assert.Equal(f.T, v["p"], p["translationOf"])
				assert.Equal(f.T, false, p["published"])
				assert.Equal(f.T, "de:Getting de:started", p["title"])
				body := p["body"].(string)
				assert.Contains(f.T, body, "# de:Hello de:world")
				assert.Contains(f.T, body, "`make dev`", "code spans are never translated")
				assert.Contains(f.T, body, "(wiki:"+v["kb"]+"/intro)", "link targets are kept")
				assert.Contains(f.T, body, "```sh\necho hi\n```", "code blocks are kept")
				for _, req := range srv.Requests() {
					assert.Equal(f.T, "DeepL-Auth-Key "+srv.Key, req.Auth)
					assert.NotContains(f.T, strings.Join(req.Text, " "), "echo hi")
				}
			}},
		{Name: "a second translation to the same locale", Given: func(f *hubFixture) apitest.IDs {
			v := page(f)
			r := f.P.Do(http.MethodPost, "/hub/wikipages/"+v["p"]+"/actions/translate", f.Admin, map[string]any{"targetLocale": "fr"})
			require.Equal(f.T, 200, r.Status, "%s", r.Body)
			return v
		}, Method: "POST", Path: "/hub/wikipages/{p}/actions/translate", Body: map[string]any{"targetLocale": "fr"}, Status: 409, Field: "targetLocale"},
		{Name: "the page's own locale", Given: page, Method: "POST", Path: "/hub/wikipages/{p}/actions/translate", Body: map[string]any{"targetLocale": "en"},
			Status: 422, Field: "targetLocale"},
		{Name: "a locale the provider cannot name", Given: page, Method: "POST", Path: "/hub/wikipages/{p}/actions/translate",
			Body: map[string]any{"targetLocale": "de-CH-1996"}, Status: 422, Field: "targetLocale"},
		{Name: "translating needs the create right", Given: page, Method: "POST", Path: "/hub/wikipages/{p}/actions/translate",
			Scopes: []string{"hub.wikipages.view", "hub.wikipages.edit"}, Body: map[string]any{"targetLocale": "de"}, Status: 403},
		{Name: "a provider that refuses the key is a 503 without the key", Given: func(f *hubFixture) apitest.IDs {
			srv.Fail(http.StatusForbidden, 1)
			return page(f)
		}, Method: "POST", Path: "/hub/wikipages/{p}/actions/translate", Body: map[string]any{"targetLocale": "it"}, Status: 503,
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) { assert.NotContains(f.T, string(r.Body), srv.Key) }},
		{Name: "a busy provider is a 503", Given: func(f *hubFixture) apitest.IDs {
			srv.Fail(http.StatusTooManyRequests, 1)
			return page(f)
		}, Method: "POST", Path: "/hub/wikipages/{p}/actions/translate", Body: map[string]any{"targetLocale": "es"}, Status: 503},
	})
}
