package cms_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/test/apitest"
	"platform/test/testenv"
)

type cmsFixture struct{ *apitest.Env }

func (f *cmsFixture) For(t testing.TB) *cmsFixture { return &cmsFixture{f.Env.For(t)} }

type cmsScenario = apitest.Scenario[*cmsFixture]

var cmsCollections = []string{"webpages", "snippets", "ailibraries"}

// newCMS is the CMS's API without a worker: pages are stored, and their
// renders wait on the queue (render tests run a worker).
func newCMS(t *testing.T, o ...testenv.Options) *cmsFixture {
	opts := apitest.Options{Modules: []string{"cms"}, Rights: []string{"cms.*"}, Collections: cmsCollections}
	if len(o) > 0 {
		opts.Platform = o[0]
	}
	return &cmsFixture{apitest.New(t, opts)}
}

// everyType is one valid block of each type but snippet, as a client
// sends them.
const everyType = `[
 {"type":"hero","headline":"Welcome","subline":"We build things","heroImage":"https://img.test/hero.jpg","order":10},
 {"type":"text","body":"## Intro\n\nPlain **prose** about the API.","order":20},
 {"type":"image","url":"https://img.test/a.png","alt":"A chart","caption":"Growth","order":30},
 {"type":"gallery","images":[{"url":"https://img.test/1.png","alt":"One"},{"url":"https://img.test/2.png","alt":"Two","caption":"Second"}],"order":40},
 {"type":"cta","label":"Start now","url":"https://app.test/signup","order":50},
 {"type":"form","formId":"65a1b2c3d4e5f6a7b8c9d0e1","title":"Contact us","order":60},
 {"type":"embed","url":"https://www.youtube.com/watch?v=dQw4w9WgXcQ","title":"Our product","order":70},
 {"type":"accordion","items":[{"question":"Is it free?","answer":"Yes, *mostly*."}],"order":80},
 {"type":"pricing","plans":[{"name":"Basic","price":9.9,"currency":"EUR","period":"month","features":["One user"],"cta":{"label":"Buy","url":"https://app.test/buy"}}],"order":90},
 {"type":"testimonials","items":[{"quote":"Great tool","author":"Ada","role":"CTO","avatar":"https://img.test/ada.png"}],"order":100}
]`

func blocksOf(t testing.TB, js string) []any {
	t.Helper()
	var v []any
	require.NoError(t, json.Unmarshal([]byte(js), &v))
	return v
}

func slugOf() string { return "p-" + store.NewID()[16:] }

// page creates a page with a fresh slug and returns its id.
func (f *cmsFixture) page(more map[string]any) string {
	body := map[string]any{"slug": slugOf(), "title": "A page", "blocks": blocksOf(f.T, everyType)}
	for k, v := range more {
		body[k] = v
	}
	return f.Create("/cms/webpages", body)
}

func (f *cmsFixture) snippet(blocks []any) string {
	return f.Create("/cms/snippets", map[string]any{"name": "s-" + store.NewID()[14:], "blocks": blocks})
}

func snippetBlock(id string) []any { return []any{map[string]any{"type": "snippet", "snippetId": id}} }

func oneBlock(b map[string]any) map[string]any {
	return map[string]any{"slug": slugOf(), "title": "T", "blocks": []any{b}}
}

func TestWebPages(t *testing.T) {
	f := newCMS(t)
	given := func(f *cmsFixture) apitest.IDs { return apitest.IDs{"p": f.page(nil)} }
	apitest.Run(t, f, []cmsScenario{
		{Name: "create with every block type", Method: "POST", Path: "/cms/webpages", Status: 201, Events: []string{"webpages.created"},
			Body: map[string]any{"slug": "products/red-shoes", "locale": "de", "title": "Rote Schuhe", "description": "Schuhe", "blocks": blocksOf(t, everyType)},
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) {
				list := r.Payload()["blocks"].([]any)
				require.Len(f.T, list, 10)
				for _, b := range list {
					assert.Len(f.T, b.(map[string]any)["_id"], 24, "the platform gives every block an id")
					assert.Equal(f.T, true, b.(map[string]any)["visible"])
				}
				assert.Equal(f.T, false, r.Payload()["published"])
			}},
		{Name: "a slug that is no path", Method: "POST", Path: "/cms/webpages", Status: 422, Field: "slug",
			Body: map[string]any{"slug": "/About Us/", "title": "T"}},
		{Name: "the same slug in the same locale", Given: func(f *cmsFixture) apitest.IDs {
			f.Create("/cms/webpages", map[string]any{"slug": "twice", "title": "T"})
			return apitest.IDs{}
		}, Method: "POST", Path: "/cms/webpages", Status: 409, Field: "slug", Body: map[string]any{"slug": "twice", "title": "T"}},
		{Name: "the same slug in another locale", Given: func(f *cmsFixture) apitest.IDs {
			f.Create("/cms/webpages", map[string]any{"slug": "both", "title": "T"})
			return apitest.IDs{}
		}, Method: "POST", Path: "/cms/webpages", Status: 201, Events: []string{"webpages.created"}, Body: map[string]any{"slug": "both", "locale": "fr", "title": "T"}},
		{Name: "get by slug and locale", Given: func(f *cmsFixture) apitest.IDs {
			f.Create("/cms/webpages", map[string]any{"slug": "keyed", "locale": "it", "title": "T"})
			return apitest.IDs{}
		}, Method: "GET", Path: "/cms/webpages/keyed?locale=it", Status: 200,
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) { assert.Equal(f.T, "it", r.Payload()["locale"]) }},
		{Name: "published is set by the actions only", Method: "POST", Path: "/cms/webpages", Status: 422, Field: "published",
			Body: map[string]any{"slug": slugOf(), "title": "T", "published": true}},
		{Name: "a custom domain that is no host name", Method: "POST", Path: "/cms/webpages", Status: 422, Field: "customDomain",
			Body: map[string]any{"slug": slugOf(), "title": "T", "customDomain": "https://example.com/x"}},
		{Name: "another customer's custom domain", Given: func(f *cmsFixture) apitest.IDs {
			r := f.P.Do(http.MethodPost, "/cms/webpages", f.Other, map[string]any{"slug": "home", "title": "B", "customDomain": "www.taken.test"})
			require.Equal(f.T, 201, r.Status, "%s", r.Body)
			return apitest.IDs{}
		}, Method: "POST", Path: "/cms/webpages", Status: 409, Field: "customDomain",
			Body: map[string]any{"slug": slugOf(), "title": "T", "customDomain": "www.taken.test"}},
		{Name: "a released custom domain is free again", Given: func(f *cmsFixture) apitest.IDs {
			id := f.page(map[string]any{"customDomain": "www.moved.test"})
			r := f.P.Do(http.MethodPatch, "/cms/webpages/"+id, f.Admin, map[string]any{"customDomain": "www.other.test"})
			require.Equal(f.T, 200, r.Status, "%s", r.Body)
			return apitest.IDs{}
		}, Method: "POST", Path: "/cms/webpages", Status: 201, Events: []string{"webpages.created"},
			Body: map[string]any{"slug": slugOf(), "title": "T", "customDomain": "www.moved.test"}},
		{Name: "a snippet that does not exist", Method: "POST", Path: "/cms/webpages", Status: 422, Field: "blocks[0].snippetId",
			Body: oneBlock(map[string]any{"type": "snippet", "snippetId": store.NewID()})},
		{Name: "two blocks with one id", Method: "POST", Path: "/cms/webpages", Status: 422,
			Body: map[string]any{"slug": slugOf(), "title": "T", "blocks": []any{
				map[string]any{"_id": "65a1b2c3d4e5f6a7b8c9d0e1", "type": "text", "body": "a"},
				map[string]any{"_id": "65a1b2c3d4e5f6a7b8c9d0e1", "type": "text", "body": "b"}}}},
		{Name: "a block's id is kept", Given: given, Method: "PATCH", Path: "/cms/webpages/{p}", Status: 200, Events: []string{"webpages.updated"},
			Body: map[string]any{"blocks": []any{map[string]any{"_id": "65a1b2c3d4e5f6a7b8c9d0e1", "type": "text", "body": "kept"}}},
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "65a1b2c3d4e5f6a7b8c9d0e1", r.Payload()["blocks"].([]any)[0].(map[string]any)["_id"])
			}},
		{Name: "rights are cms.webpages.*", Method: "POST", Path: "/cms/webpages", Scopes: []string{"cms.webpages.view"},
			Body: map[string]any{"slug": slugOf(), "title": "T"}, Status: 403},
	})
}

// TestBlockValidation: every block type, good and bad, through the API.
func TestBlockValidation(t *testing.T) {
	f := newCMS(t)
	bad := []struct {
		name  string
		block map[string]any
		field string
	}{
		{"unknown type", map[string]any{"type": "video"}, "blocks[0].type"},
		{"no type", map[string]any{"body": "x"}, "blocks[0].type"},
		{"hero without headline", map[string]any{"type": "hero", "subline": "x"}, "blocks[0].headline"},
		{"hero image that is no URL", map[string]any{"type": "hero", "headline": "x", "heroImage": "javascript:alert(1)"}, "blocks[0].heroImage"},
		{"text without body", map[string]any{"type": "text"}, "blocks[0].body"},
		{"text with another type's field", map[string]any{"type": "text", "body": "x", "label": "y"}, "blocks[0].label"},
		{"image without alt", map[string]any{"type": "image", "url": "https://img.test/a.png"}, "blocks[0].alt"},
		{"gallery without images", map[string]any{"type": "gallery", "images": []any{}}, "blocks[0].images"},
		{"cta without url", map[string]any{"type": "cta", "label": "Go"}, "blocks[0].url"},
		{"form with a bad id", map[string]any{"type": "form", "formId": "nope"}, "blocks[0].formId"},
		{"embed of a provider not allowed", map[string]any{"type": "embed", "url": "https://evil.test/player"}, "blocks[0].url"},
		{"accordion item without answer", map[string]any{"type": "accordion", "items": []any{map[string]any{"question": "Q"}}}, "blocks[0].items[0].answer"},
		{"pricing with a negative price", map[string]any{"type": "pricing", "plans": []any{map[string]any{"name": "A", "price": -1, "currency": "EUR", "period": "month"}}}, "blocks[0].plans[0].price"},
		{"pricing with a bad currency", map[string]any{"type": "pricing", "plans": []any{map[string]any{"name": "A", "price": 1, "currency": "euro", "period": "month"}}}, "blocks[0].plans[0].currency"},
		{"testimonial without author", map[string]any{"type": "testimonials", "items": []any{map[string]any{"quote": "Q"}}}, "blocks[0].items[0].author"},
		{"responsive alignment outside the list", map[string]any{"type": "text", "body": "x", "responsiveSettings": map[string]any{"mobile": map[string]any{"alignment": "middle"}}},
			"blocks[0].responsiveSettings.mobile.alignment"},
	}
	var scenarios []cmsScenario
	for _, c := range bad {
		scenarios = append(scenarios, cmsScenario{Name: c.name, Method: "POST", Path: "/cms/webpages", Body: oneBlock(c.block), Status: 422, Field: c.field})
	}
	for _, b := range blocksOf(t, everyType) {
		block := b.(map[string]any)
		block["responsiveSettings"] = map[string]any{"mobile": map[string]any{"visible": false}, "desktop": map[string]any{"alignment": "center", "spacing": "large"}}
		scenarios = append(scenarios, cmsScenario{Name: "good " + block["type"].(string), Method: "POST", Path: "/cms/webpages", Body: oneBlock(block),
			Status: 201, Events: []string{"webpages.created"}})
	}
	apitest.Run(t, f, scenarios)
}

func TestSnippets(t *testing.T) {
	f := newCMS(t)
	text := []any{map[string]any{"type": "text", "body": "Shared"}}
	apitest.Run(t, f, []cmsScenario{
		{Name: "create", Method: "POST", Path: "/cms/snippets", Status: 201, Events: []string{"snippets.created"},
			Body: map[string]any{"name": "footer", "description": "the footer", "blocks": text}},
		{Name: "a snippet that includes itself", Given: func(f *cmsFixture) apitest.IDs { return apitest.IDs{"s": f.snippet(text)} },
			Method: "PATCH", Path: "/cms/snippets/{s}", Body: map[string]any{"blocks": snippetBlock("{s}")}, Status: 422, Field: "blocks[0].snippetId"},
		{Name: "a snippet that includes itself through another", Given: func(f *cmsFixture) apitest.IDs {
			a := f.snippet(text)
			b := f.snippet(snippetBlock(a))
			return apitest.IDs{"a": a, "b": b}
		}, Method: "PATCH", Path: "/cms/snippets/{a}", Body: map[string]any{"blocks": snippetBlock("{b}")}, Status: 422, Field: "blocks[0].snippetId"},
		{Name: "a snippet within a snippet", Given: func(f *cmsFixture) apitest.IDs { return apitest.IDs{"a": f.snippet(text)} },
			Method: "POST", Path: "/cms/snippets", Body: map[string]any{"name": "outer", "blocks": snippetBlock("{a}")}, Status: 201, Events: []string{"snippets.created"}},
		{Name: "a snippet a page includes is not deleted", Given: func(f *cmsFixture) apitest.IDs {
			s := f.snippet(text)
			f.page(map[string]any{"blocks": snippetBlock(s)})
			return apitest.IDs{"s": s}
		}, Method: "DELETE", Path: "/cms/snippets/{s}", Status: 409},
		{Name: "a snippet another includes is not deleted", Given: func(f *cmsFixture) apitest.IDs {
			s := f.snippet(text)
			f.snippet(snippetBlock(s))
			return apitest.IDs{"s": s}
		}, Method: "DELETE", Path: "/cms/snippets/{s}", Status: 409},
		{Name: "an unused snippet is deleted", Given: func(f *cmsFixture) apitest.IDs { return apitest.IDs{"s": f.snippet(text)} },
			Method: "DELETE", Path: "/cms/snippets/{s}", Status: 200, Events: []string{"snippets.deleted"}},
		{Name: "duplicate name", Given: func(f *cmsFixture) apitest.IDs {
			f.Create("/cms/snippets", map[string]any{"name": "header"})
			return apitest.IDs{}
		}, Method: "POST", Path: "/cms/snippets", Body: map[string]any{"name": "header"}, Status: 409, Field: "name"},
	})
}

func TestAILibraries(t *testing.T) {
	f := newCMS(t)
	lib := func(more map[string]any) map[string]any {
		b := map[string]any{"name": "lib-" + store.NewID()[14:], "prompt": "Write about {{topic}} for {{page.title}}.", "blockTypes": []string{"hero", "text"}}
		for k, v := range more {
			b[k] = v
		}
		return b
	}
	apitest.Run(t, f, []cmsScenario{
		{Name: "create", Method: "POST", Path: "/cms/ailibraries", Body: lib(map[string]any{"model": map[string]any{"name": "gpt-test", "temperature": 0.2, "maxTokens": 2000}}),
			Status: 201, Events: []string{"ailibraries.created"},
			Then: func(f *cmsFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.EqualValues(f.T, 10, r.Payload()["maxBlocks"])
			}},
		{Name: "a block type that does not exist", Method: "POST", Path: "/cms/ailibraries", Body: lib(map[string]any{"blockTypes": []string{"video"}}), Status: 422, Field: "blockTypes[0]"},
		{Name: "snippets cannot be generated", Method: "POST", Path: "/cms/ailibraries", Body: lib(map[string]any{"blockTypes": []string{"snippet"}}), Status: 422, Field: "blockTypes[0]"},
		{Name: "no block type", Method: "POST", Path: "/cms/ailibraries", Body: lib(map[string]any{"blockTypes": []string{}}), Status: 422, Field: "blockTypes"},
		{Name: "temperature out of range", Method: "POST", Path: "/cms/ailibraries", Body: lib(map[string]any{"model": map[string]any{"temperature": 3}}), Status: 422, Field: "model.temperature"},
		{Name: "an unknown template path", Method: "POST", Path: "/cms/ailibraries", Body: lib(map[string]any{"prompt": "About {{secrets.key}}"}), Status: 422, Field: "prompt"},
		{Name: "too many blocks", Method: "POST", Path: "/cms/ailibraries", Body: lib(map[string]any{"maxBlocks": 500}), Status: 422, Field: "maxBlocks"},
	})
}

func TestOpenAPIHasOneTypePerBlock(t *testing.T) {
	f := newCMS(t)
	doc := f.P.OpenAPI("/cms/openapi.json")
	schemas := doc.Components.Schemas
	for _, name := range []string{"HeroBlock", "TextBlock", "ImageBlock", "GalleryBlock", "CtaBlock", "FormBlock", "EmbedBlock",
		"AccordionBlock", "PricingBlock", "TestimonialsBlock", "SnippetBlock", "HeroBlockInput"} {
		_, ok := schemas.Get(name)
		assert.True(t, ok, name)
	}
	page, ok := schemas.Get("WebpagesInput")
	require.True(t, ok)
	items := page.Schema().Properties.GetOrZero("blocks").Schema().Items.A.Schema()
	require.NotNil(t, items.Discriminator, "blocks[] is a discriminated union")
	assert.Equal(t, "type", items.Discriminator.PropertyName)
	assert.Equal(t, 11, items.Discriminator.Mapping.Len())
	assert.True(t, strings.HasSuffix(items.Discriminator.Mapping.GetOrZero("hero"), "/HeroBlockInput"))
}
