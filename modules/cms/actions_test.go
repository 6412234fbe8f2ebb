package cms_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/llm/llmtest"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/translate/translatetest"
	"platform/test/apitest"
	"platform/test/testenv"
)

func TestPublishAndDuplicate(t *testing.T) {
	f := newCMS(t)
	given := func(f *cmsFixture) apitest.IDs { return apitest.IDs{"p": f.page(nil)} }
	published := func(f *cmsFixture) apitest.IDs {
		v := given(f)
		r := f.P.Do(http.MethodPost, "/cms/webpages/"+v["p"]+"/actions/publish", f.Admin, nil)
		require.Equal(f.T, 200, r.Status, "%s", r.Body)
		return v
	}
	apitest.Run(t, f, []cmsScenario{
		{Name: "publish", Given: given, Method: "POST", Path: "/cms/webpages/{p}/actions/publish", Status: 200, Events: []string{"webpages.published"},
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, true, r.Payload()["published"])
				assert.NotEmpty(f.T, r.Payload()["publishedAt"])
			}},
		{Name: "publishing a published page changes nothing", Given: published, Method: "POST", Path: "/cms/webpages/{p}/actions/publish", Status: 200},
		{Name: "unpublish", Given: published, Method: "POST", Path: "/cms/webpages/{p}/actions/unpublish", Status: 200, Events: []string{"webpages.unpublished"},
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, false, r.Payload()["published"])
			}},
		{Name: "publishing needs cms.webpages.publish", Given: given, Method: "POST", Path: "/cms/webpages/{p}/actions/publish",
			Scopes: []string{"cms.webpages.view", "cms.webpages.edit"}, Status: 403},
		{Name: "duplicate", Given: published, Method: "POST", Path: "/cms/webpages/{p}/actions/duplicate", Status: 200,
			Events: []string{"webpages.created", "webpages.duplicated"},
			Then: func(f *cmsFixture, v apitest.IDs, r *testenv.Resp) {
				orig := f.Stored("webpages", v["p"])
				p := r.Payload()
				assert.Equal(f.T, orig["slug"].(string)+"-copy", p["slug"])
				assert.Equal(f.T, false, p["published"], "a copy starts unpublished")
				assert.Equal(f.T, v["p"], p["duplicateOf"])
				assert.Len(f.T, p["blocks"], 10)
				again := f.P.Do(http.MethodPost, "/cms/webpages/"+v["p"]+"/actions/duplicate", f.Admin, nil)
				require.Equal(f.T, 200, again.Status, "%s", again.Body)
				assert.Equal(f.T, orig["slug"].(string)+"-copy-2", again.Payload()["slug"])
			}},
		{Name: "a duplicate leaves the custom domain to the original", Given: func(f *cmsFixture) apitest.IDs {
			return apitest.IDs{"p": f.page(map[string]any{"customDomain": "www.dup.test"})}
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/duplicate", Status: 200, Events: []string{"webpages.created", "webpages.duplicated"},
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.NotContains(f.T, r.Payload(), "customDomain")
			}},
		{Name: "duplicating needs the create right", Given: given, Method: "POST", Path: "/cms/webpages/{p}/actions/duplicate",
			Scopes: []string{"cms.webpages.view", "cms.webpages.edit"}, Status: 403},
	})
}

// TestTranslateAction runs translate against a local server that speaks
// DeepL's API v2, through the outbound guard.
func TestTranslateAction(t *testing.T) {
	srv := translatetest.New(t)
	f := newCMS(t, testenv.Options{Configure: func(c *settings.Config) {
		c.TranslateURL, c.TranslateKey, c.OutboundAllow = srv.URL(), srv.Key, []string{"127.0.0.1"}
	}})
	given := func(f *cmsFixture) apitest.IDs {
		return apitest.IDs{"p": f.page(map[string]any{"title": "Red shoes", "description": "Good shoes"})}
	}
	apitest.Run(t, f, []cmsScenario{
		{Name: "every text of every block is translated", Given: given, Method: "POST", Path: "/cms/webpages/{p}/actions/translate",
			Body: map[string]any{"targetLocale": "de"}, Status: 200, Events: []string{"webpages.created", "webpages.translated"},
			Then: func(f *cmsFixture, v apitest.IDs, r *testenv.Resp) {
				p := r.Payload()
				orig := f.Stored("webpages", v["p"])
				assert.Equal(f.T, orig["slug"], p["slug"], "a translation keeps the slug")
				assert.Equal(f.T, "de", p["locale"])
				assert.Equal(f.T, v["p"], p["translationOf"])
				assert.Equal(f.T, "de:Red de:shoes", p["title"])
				assert.Equal(f.T, "de:Good de:shoes", p["description"])
				list := p["blocks"].([]any)
				hero, text := list[0].(map[string]any), list[1].(map[string]any)
				assert.Equal(f.T, "de:Welcome", hero["headline"])
				assert.Equal(f.T, "https://img.test/hero.jpg", hero["heroImage"], "URLs are never translated")
				assert.Contains(f.T, text["body"], "## de:Intro")
				assert.Contains(f.T, text["body"], "**de:prose**")
				pricing := list[8].(map[string]any)["plans"].([]any)[0].(map[string]any)
				assert.Equal(f.T, "EUR", pricing["currency"])
				assert.Equal(f.T, []any{"de:One de:user"}, pricing["features"])
			}},
		{Name: "a second translation to the same locale", Given: func(f *cmsFixture) apitest.IDs {
			v := given(f)
			r := f.P.Do(http.MethodPost, "/cms/webpages/"+v["p"]+"/actions/translate", f.Admin, map[string]any{"targetLocale": "fr"})
			require.Equal(f.T, 200, r.Status, "%s", r.Body)
			return v
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/translate", Body: map[string]any{"targetLocale": "fr"}, Status: 409, Field: "targetLocale"},
		{Name: "a page of more Markdown texts than one call translates", Given: func(f *cmsFixture) apitest.IDs {
			return apitest.IDs{"p": f.page(map[string]any{"blocks": manyAnswers(4, 100)})}
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/translate", Body: map[string]any{"targetLocale": "nl"}, Status: 422, Field: "blocks"},
		{Name: "the page's own locale", Given: given, Method: "POST", Path: "/cms/webpages/{p}/actions/translate",
			Body: map[string]any{"targetLocale": "en"}, Status: 422, Field: "targetLocale"},
		{Name: "a provider that refuses the key is a 503 without the key", Given: func(f *cmsFixture) apitest.IDs {
			srv.Fail(http.StatusForbidden, 1)
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/translate", Body: map[string]any{"targetLocale": "it"}, Status: 503,
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) { assert.NotContains(f.T, string(r.Body), srv.Key) }},
	})
}

// TestGenerateBlocks runs generate-blocks against a local server that
// speaks the chat-completions API.
func TestGenerateBlocks(t *testing.T) {
	srv := llmtest.New(t)
	f := newCMS(t, testenv.Options{Configure: func(c *settings.Config) {
		c.LLMURL, c.LLMKey, c.LLMModel, c.OutboundAllow = srv.URL(), srv.Key, "gpt-test", []string{"127.0.0.1"}
	}})
	given := func(f *cmsFixture) apitest.IDs {
		lib := f.Create("/cms/ailibraries", map[string]any{"name": "lib-" + store.NewID()[14:], "prompt": "Write about {{topic}} for the page {{page.title}}.",
			"blockTypes": []string{"hero", "text"}, "maxBlocks": 3, "model": map[string]any{"name": "gpt-4o-mini", "temperature": 0.3}})
		return apitest.IDs{"p": f.page(map[string]any{"title": "Shoes"}), "lib": lib}
	}
	good := `{"blocks":[{"type":"hero","headline":"Shoes for everyone"},{"type":"text","body":"## Why\n\nBecause."}]}`
	apitest.Run(t, f, []cmsScenario{
		{Name: "proposed blocks are validated and appended", Given: func(f *cmsFixture) apitest.IDs {
			srv.Queue(llmtest.Reply{Content: good})
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks", Body: map[string]any{"libraryId": "{lib}", "topic": "running shoes"},
			Status: 200, Events: []string{"webpages.updated", "webpages.blocksgenerated"},
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) {
				list := r.Payload()["blocks"].([]any)
				require.Len(f.T, list, 12)
				added := list[10].(map[string]any)
				assert.Equal(f.T, "Shoes for everyone", added["headline"])
				assert.Len(f.T, added["_id"], 24)
				assert.EqualValues(f.T, 110, added["order"], "after the page's last block")
				reqs := srv.Requests()
				last := reqs[len(reqs)-1]
				assert.Equal(f.T, "gpt-4o-mini", last.Model)
				assert.True(f.T, last.JSON(), "JSON mode")
				assert.Equal(f.T, "Write about running shoes for the page Shoes.", last.User())
				assert.Contains(f.T, last.System(), "hero")
				assert.NotContains(f.T, last.System(), "pricing", "only the library's types are offered")
			}},
		{Name: "an invalid block is a 502 and nothing is stored", Given: func(f *cmsFixture) apitest.IDs {
			srv.Queue(llmtest.Reply{Content: `{"blocks":[{"type":"hero","subline":"no headline"}]}`})
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks", Body: map[string]any{"libraryId": "{lib}", "topic": "x"},
			Status: 502, Field: "blocks[0].headline"},
		{Name: "a type the library does not allow is a 502", Given: func(f *cmsFixture) apitest.IDs {
			srv.Queue(llmtest.Reply{Content: `{"blocks":[{"type":"cta","label":"Go","url":"https://x.test"}]}`})
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks", Body: map[string]any{"libraryId": "{lib}", "topic": "x"},
			Status: 502, Field: "blocks[0].type"},
		{Name: "an answer that is no JSON is a 502", Given: func(f *cmsFixture) apitest.IDs {
			srv.Queue(llmtest.Reply{Content: "Sure! Here are some blocks."})
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks", Body: map[string]any{"libraryId": "{lib}", "topic": "x"},
			Status: 502, Field: "blocks"},
		{Name: "a number beyond a float is a 502", Given: func(f *cmsFixture) apitest.IDs {
			srv.Queue(llmtest.Reply{Content: `{"blocks":[{"type":"text","body":"x","order":1e999}]}`})
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks", Body: map[string]any{"libraryId": "{lib}", "topic": "x"},
			Status: 502, Field: "blocks"},
		{Name: "more blocks than the library allows is a 502", Given: func(f *cmsFixture) apitest.IDs {
			srv.Queue(llmtest.Reply{Content: `{"blocks":[` + strings.Repeat(`{"type":"text","body":"x"},`, 3) + `{"type":"text","body":"x"}]}`})
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks", Body: map[string]any{"libraryId": "{lib}", "topic": "x"},
			Status: 502, Field: "blocks"},
		{Name: "a cut answer is a 502", Given: func(f *cmsFixture) apitest.IDs {
			srv.Queue(llmtest.Reply{Content: `{"blocks":[{"type":"text",`, FinishReason: "length"})
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks", Body: map[string]any{"libraryId": "{lib}", "topic": "x"}, Status: 502},
		{Name: "a busy model is a 503", Given: func(f *cmsFixture) apitest.IDs {
			srv.Queue(llmtest.Reply{Status: 429, RetryAfter: "3"})
			return given(f)
		}, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks", Body: map[string]any{"libraryId": "{lib}", "topic": "x"}, Status: 503,
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) { assert.NotContains(f.T, string(r.Body), srv.Key) }},
		{Name: "an unknown library", Given: given, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks",
			Body: map[string]any{"libraryId": store.NewID(), "topic": "x"}, Status: 422, Field: "libraryId"},
		{Name: "generating needs the edit right", Given: given, Method: "POST", Path: "/cms/webpages/{p}/actions/generate-blocks",
			Body: map[string]any{"libraryId": "{lib}", "topic": "x"}, Scopes: []string{"cms.webpages.view"}, Status: 403},
	})
}

// manyAnswers is n accordion blocks of m items each: n*m Markdown texts.
func manyAnswers(n, m int) []any {
	var list []any
	for range n {
		items := make([]any, m)
		for j := range items {
			items[j] = map[string]any{"question": "Q?", "answer": "A *b*"}
		}
		list = append(list, map[string]any{"type": "accordion", "items": items})
	}
	return list
}
