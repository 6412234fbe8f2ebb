package hub_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/modules/hub"
	"platform/test/apitest"
	"platform/test/testenv"
)

type hubFixture struct{ *apitest.Env }

func (f *hubFixture) For(t testing.TB) *hubFixture { return &hubFixture{f.Env.For(t)} }

type hubScenario = apitest.Scenario[*hubFixture]

var hubCollections = []string{"knowledgebases", "wikipages", "faqs", "glossaries"}

// newHub is the hub's API without a worker: pages are stored, and their
// renders wait on the queue (render tests run a worker).
func newHub(t *testing.T) *hubFixture {
	return &hubFixture{apitest.New(t, apitest.Options{Modules: []string{"hub"}, Rights: []string{"hub.*"}, Collections: hubCollections})}
}

// base creates a knowledge base with a fresh slug and returns the slug.
func (f *hubFixture) base() string {
	slug := "kb-" + store.NewID()[14:]
	f.Create("/hub/knowledgebases", map[string]any{"slug": slug, "title": "Docs " + slug, "icon": "menu_book"})
	return slug
}

// page creates a page in kb and returns its id.
func (f *hubFixture) page(kb, slug string, more map[string]any) string {
	body := map[string]any{"kbslug": kb, "slug": slug, "title": "Page " + slug, "body": "# " + slug + "\n\ntext"}
	for k, v := range more {
		body[k] = v
	}
	return f.Create("/hub/wikipages", body)
}

func TestKnowledgeBases(t *testing.T) {
	f := newHub(t)
	given := func(f *hubFixture) apitest.IDs { return apitest.IDs{"kb": f.base()} }
	apitest.Run(t, f, []hubScenario{
		{Name: "create with every field", Method: "POST", Path: "/hub/knowledgebases", Status: 201, Events: []string{"knowledgebases.created"},
			Body: map[string]any{"slug": "handbook", "title": "Handbook", "description": "How we work", "theme": "emerald", "icon": "menu_book", "published": true, "order": 20},
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "emerald", r.Payload()["theme"])
				assert.EqualValues(f.T, 20, r.Payload()["order"])
			}},
		{Name: "get by slug", Given: given, Method: "GET", Path: "/hub/knowledgebases/{kb}", Status: 200,
			Then: func(f *hubFixture, v apitest.IDs, r *testenv.Resp) { assert.Equal(f.T, v["kb"], r.Payload()["slug"]) }},
		{Name: "theme outside the list", Method: "POST", Path: "/hub/knowledgebases", Status: 422, Field: "theme",
			Body: map[string]any{"slug": "x1", "title": "X", "theme": "pink"}},
		{Name: "icon that is no Material icon", Method: "POST", Path: "/hub/knowledgebases", Status: 422, Field: "icon",
			Body: map[string]any{"slug": "x2", "title": "X", "icon": "not_an_icon_at_all"}},
		{Name: "slug that is no URL segment", Method: "POST", Path: "/hub/knowledgebases", Status: 422, Field: "slug",
			Body: map[string]any{"slug": "Has Spaces", "title": "X"}},
		{Name: "slug that looks like an id", Method: "POST", Path: "/hub/knowledgebases", Status: 422, Field: "slug",
			Body: map[string]any{"slug": "0123456789abcdef01234567", "title": "X"}},
		{Name: "duplicate slug", Given: given, Method: "POST", Path: "/hub/knowledgebases", Status: 409, Field: "slug",
			Body: map[string]any{"slug": "{kb}", "title": "X"}},
		{Name: "a base with pages keeps its slug", Given: func(f *hubFixture) apitest.IDs {
			kb := f.base()
			f.page(kb, "intro", nil)
			return apitest.IDs{"kb": kb}
		}, Method: "PATCH", Path: "/hub/knowledgebases/{kb}", Body: map[string]any{"slug": "renamed"}, Status: 422, Field: "slug"},
		{Name: "a base with pages is not deleted", Given: func(f *hubFixture) apitest.IDs {
			kb := f.base()
			f.page(kb, "intro", nil)
			return apitest.IDs{"kb": kb}
		}, Method: "DELETE", Path: "/hub/knowledgebases/{kb}", Status: 409, Field: "slug"},
		{Name: "an empty base is deleted", Given: given, Method: "DELETE", Path: "/hub/knowledgebases/{kb}", Status: 200, Events: []string{"knowledgebases.deleted"}},
		{Name: "rights are hub.knowledgebases.*", Method: "POST", Path: "/hub/knowledgebases", Scopes: []string{"hub.knowledgebases.view"},
			Body: map[string]any{"slug": "x3", "title": "X"}, Status: 403},
	})
}

func TestIconList(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"menu_book", "home", "search", "settings", "help", "rocket_launch"} {
		require.True(t, hub.IsIcon(name), name)
	}
	for _, name := range []string{"", "Home", "menu book", "<script>", "rocket-launch"} {
		require.False(t, hub.IsIcon(name), name)
	}
}
