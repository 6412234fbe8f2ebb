package hub_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/apitest"
	"platform/test/testenv"
)

// tree is a knowledge base with intro > setup > deep, and faq at the top.
func (f *hubFixture) tree() apitest.IDs {
	kb := f.base()
	return apitest.IDs{"kb": kb,
		"intro": f.page(kb, "intro", nil),
		"setup": f.page(kb, "setup", map[string]any{"parentSlug": "intro"}),
		"deep":  f.page(kb, "deep", map[string]any{"parentSlug": "setup"}),
		"faq":   f.page(kb, "faq", nil),
	}
}

func TestWikiPages(t *testing.T) {
	f := newHub(t)
	given := func(f *hubFixture) apitest.IDs { return apitest.IDs{"kb": f.base()} }
	apitest.Run(t, f, []hubScenario{
		{Name: "create", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 201, Events: []string{"wikipages.created"},
			Body: map[string]any{"kbslug": "{kb}", "slug": "intro", "title": "Intro", "body": "# Hello", "tags": []string{"a"}, "locale": "de"},
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) {
				p := r.Payload()
				assert.EqualValues(f.T, 10, p["order"], "the first page of a parent gets 10")
				assert.Equal(f.T, "markdown", p["contentFormat"])
				assert.Equal(f.T, false, p["published"])
			}},
		{Name: "front matter fills the fields", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 201, Events: []string{"wikipages.created"},
			Body: map[string]any{"body": "---\nkbslug: {kb}\nslug: from-yaml\ntitle: From YAML\ntags: [x, y]\norder: 30\n---\n# Body"},
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.T, "from-yaml", p["slug"])
				assert.Equal(f.T, "From YAML", p["title"])
				assert.Equal(f.T, []any{"x", "y"}, p["tags"])
				assert.EqualValues(f.T, 30, p["order"])
			}},
		{Name: "explicit fields win over front matter", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 201, Events: []string{"wikipages.created"},
			Body: map[string]any{"title": "Explicit", "body": "---\nkbslug: {kb}\nslug: fm\ntitle: From YAML\n---\ntext"},
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "Explicit", r.Payload()["title"])
			}},
		{Name: "front matter that is not YAML", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "body",
			Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X", "body": "---\ntitle: [unclosed\n---\ntext"}},
		{Name: "front matter of the wrong type", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "tags",
			Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X", "body": "---\ntags: {a: 1}\n---\ntext"}},
		{Name: "kbslug is required", Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "kbslug",
			Body: map[string]any{"slug": "x", "title": "X"}},
		{Name: "kbslug must name a knowledge base", Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "kbslug",
			Body: map[string]any{"kbslug": "nowhere", "slug": "x", "title": "X"}},
		{Name: "the knowledge base must be the customer's", Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "kbslug",
			Token: func(f *hubFixture) string { return f.Other },
			Given: given, Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X"}},
		{Name: "slug unique per knowledge base", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "POST", Path: "/hub/wikipages",
			Body: map[string]any{"kbslug": "{kb}", "slug": "intro", "title": "X"}, Status: 409, Field: "slug"},
		{Name: "the same slug in another knowledge base", Given: func(f *hubFixture) apitest.IDs {
			v := f.tree()
			v["kb2"] = f.base()
			return v
		}, Method: "POST", Path: "/hub/wikipages", Body: map[string]any{"kbslug": "{kb2}", "slug": "intro", "title": "X"}, Status: 201,
			Events: []string{"wikipages.created"}},
		{Name: "slug form", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "slug",
			Body: map[string]any{"kbslug": "{kb}", "slug": "Not_A_Slug", "title": "X"}},
		{Name: "parent must exist in the knowledge base", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "POST", Path: "/hub/wikipages",
			Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X", "parentSlug": "missing"}, Status: 422, Field: "parentSlug"},
		{Name: "a page is not its own parent", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "PATCH", Path: "/hub/wikipages/{intro}",
			Body: map[string]any{"parentSlug": "intro"}, Status: 422, Field: "parentSlug"},
		{Name: "no cycles", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "PATCH", Path: "/hub/wikipages/{intro}",
			Body: map[string]any{"parentSlug": "deep"}, Status: 422, Field: "parentSlug"},
		{Name: "new pages go last in their parent", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "POST", Path: "/hub/wikipages",
			Body: map[string]any{"kbslug": "{kb}", "slug": "third", "title": "X"}, Status: 201, Events: []string{"wikipages.created"},
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) { assert.EqualValues(f.T, 30, r.Payload()["order"]) }},
		{Name: "order in steps of 10", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "order",
			Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X", "order": 15}},
		{Name: "at most 500 linked pages", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "body",
			Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X", "body": manyLinks(501)}},
		{Name: "contentFormat markdown or html", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "contentFormat",
			Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X", "contentFormat": "rst"}},
		{Name: "bodyHtml is read-only", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "bodyHtml",
			Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X", "bodyHtml": "<p>mine</p>"}},
		{Name: "published is set by the actions", Given: given, Method: "POST", Path: "/hub/wikipages", Status: 422, Field: "published",
			Body: map[string]any{"kbslug": "{kb}", "slug": "x", "title": "X", "published": true}},
		{Name: "list by kbslug", Given: func(f *hubFixture) apitest.IDs {
			v := f.tree()
			f.page(f.base(), "elsewhere", nil)
			return v
		}, Method: "GET", Path: "/hub/wikipages?kbslug={kb}", Status: 200,
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) { assert.Len(f.T, r.List(), 4) }},
		{Name: "get by slug within the knowledge base", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "GET",
			Path: "/hub/wikipages/setup?kbslug={kb}", Status: 200,
			Then: func(f *hubFixture, v apitest.IDs, r *testenv.Resp) { assert.Equal(f.T, v["setup"], r.Payload()["_id"]) }},
		{Name: "PATCH the title", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "PATCH", Path: "/hub/wikipages/{intro}",
			Body: map[string]any{"title": "Introduction"}, Status: 200, Events: []string{"wikipages.updated"}},
		{Name: "a page with children keeps its slug", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "PATCH", Path: "/hub/wikipages/{intro}",
			Body: map[string]any{"slug": "start"}, Status: 409, Field: "slug"},
		{Name: "a page with children is not deleted", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "DELETE", Path: "/hub/wikipages/{setup}",
			Status: 409, Field: "slug"},
		{Name: "a leaf is deleted", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "DELETE", Path: "/hub/wikipages/{deep}",
			Status: 200, Events: []string{"wikipages.deleted"}},
		{Name: "another customer's page is not found", Given: func(f *hubFixture) apitest.IDs { return f.tree() }, Method: "GET", Path: "/hub/wikipages/{intro}",
			Token: func(f *hubFixture) string { return f.Other }, Status: 404},
	})
}

func TestWikiPageActions(t *testing.T) {
	f := newHub(t)
	tree := func(f *hubFixture) apitest.IDs { return f.tree() }
	published := func(f *hubFixture) apitest.IDs {
		v := f.tree()
		r := f.P.Do("POST", "/hub/wikipages/"+v["intro"]+"/actions/publish", f.Admin, nil)
		require.Equal(f.T, 200, r.Status, "%s", r.Body)
		return v
	}
	apitest.Run(t, f, []hubScenario{
		{Name: "publish", Given: tree, Method: "POST", Path: "/hub/wikipages/{intro}/actions/publish", Status: 200, Events: []string{"wikipages.published"},
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, true, r.Payload()["published"])
				assert.NotEmpty(f.T, r.Payload()["publishedAt"])
			}},
		{Name: "publishing a published page changes nothing", Given: published, Method: "POST", Path: "/hub/wikipages/{intro}/actions/publish", Status: 200},
		{Name: "unpublish", Given: published, Method: "POST", Path: "/hub/wikipages/{intro}/actions/unpublish", Status: 200, Events: []string{"wikipages.unpublished"},
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, false, r.Payload()["published"])
			}},
		{Name: "publishing needs hub.wikipages.publish", Given: tree, Method: "POST", Path: "/hub/wikipages/{intro}/actions/publish",
			Scopes: []string{"hub.wikipages.view", "hub.wikipages.edit"}, Status: 403},
		{Name: "move to the front of another parent renumbers the siblings", Given: func(f *hubFixture) apitest.IDs {
			v := f.tree()
			v["setup2"] = f.page(v["kb"], "setup-two", map[string]any{"parentSlug": "intro"})
			return v
		}, Method: "POST", Path: "/hub/wikipages/{faq}/actions/move", Body: map[string]any{"parentSlug": "intro", "position": 0},
			Status: 200, Events: []string{"wikipages.moved"},
			Then: func(f *hubFixture, v apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "intro", r.Payload()["parentSlug"])
				assert.EqualValues(f.T, 10, r.Payload()["order"])
				assert.EqualValues(f.T, 20, f.Stored("wikipages", v["setup"])["order"])
				assert.EqualValues(f.T, 30, f.Stored("wikipages", v["setup2"])["order"])
			}},
		{Name: "move to the top level, last", Given: tree, Method: "POST", Path: "/hub/wikipages/{setup}/actions/move", Body: map[string]any{},
			Status: 200, Events: []string{"wikipages.moved"},
			Then: func(f *hubFixture, v apitest.IDs, r *testenv.Resp) {
				assert.NotContains(f.T, r.Payload(), "parentSlug")
				assert.EqualValues(f.T, 30, r.Payload()["order"])
				assert.Equal(f.T, "setup", f.Stored("wikipages", v["deep"])["parentSlug"], "children move with their page")
			}},
		{Name: "move under a descendant is a cycle", Given: tree, Method: "POST", Path: "/hub/wikipages/{intro}/actions/move",
			Body: map[string]any{"parentSlug": "deep"}, Status: 422, Field: "parentSlug"},
		{Name: "move under a missing parent", Given: tree, Method: "POST", Path: "/hub/wikipages/{faq}/actions/move",
			Body: map[string]any{"parentSlug": "missing"}, Status: 422, Field: "parentSlug"},
		{Name: "a negative position", Given: tree, Method: "POST", Path: "/hub/wikipages/{faq}/actions/move",
			Body: map[string]any{"position": -1}, Status: 422, Field: "position"},
		{Name: "translate without a provider", Given: tree, Method: "POST", Path: "/hub/wikipages/{intro}/actions/translate",
			Body: map[string]any{"targetLocale": "de"}, Status: 503},
		{Name: "translate needs a locale", Given: tree, Method: "POST", Path: "/hub/wikipages/{intro}/actions/translate",
			Body: map[string]any{}, Status: 422, Field: "targetLocale"},
	})
}

// manyLinks is a body linking to n distinct wiki pages.
func manyLinks(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[p%d](wiki:docs/p%d) ", i, i)
	}
	return b.String()
}
