package cms_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enums "go.temporal.io/api/enums/v1"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// siteEnv is a platform with a worker, so saved pages are rendered and
// the site serves them.
type siteEnv struct {
	t   *testing.T
	p   *testenv.Platform
	tok string
}

func newSiteEnv(t *testing.T) *siteEnv {
	t.Helper()
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	p.CheckOpenAPI("cms")
	return &siteEnv{t: t, p: p, tok: p.Token("cms.*", "hub.*")}
}

func (e *siteEnv) do(method, path string, body any, status int) store.Doc {
	e.t.Helper()
	r := e.p.Do(method, path, e.tok, body)
	require.Equal(e.t, status, r.Status, "%s", r.Body)
	return r.Payload()
}

// page creates a page and waits for its first render.
func (e *siteEnv) page(body map[string]any) store.Doc {
	e.t.Helper()
	return e.settled(e.do(http.MethodPost, "/cms/webpages", body, http.StatusCreated)["_id"].(string))
}

// settled waits until the page's render workflow has nothing left to do
// and answers the page as stored.
func (e *siteEnv) settled(id string) store.Doc {
	e.t.Helper()
	e.p.AwaitWorkflow(contract.RenderWorkflowID(e.p.Customer.ID, "webpage", id))
	return e.p.Stored("webpages", id)
}

func (e *siteEnv) eventually(id string, cond func(store.Doc) bool, msg string) store.Doc {
	e.t.Helper()
	return e.p.EventuallyStored("webpages", id, cond, msg)
}

func (e *siteEnv) publish(id string) {
	e.t.Helper()
	e.do(http.MethodPost, "/cms/webpages/"+id+"/actions/publish", nil, http.StatusOK)
}

func TestPageRender(t *testing.T) {
	e := newSiteEnv(t)
	e.do(http.MethodPost, "/hub/glossaries", map[string]any{"term": "Webhook", "definition": "An HTTP callback."}, http.StatusCreated)
	snip := e.do(http.MethodPost, "/cms/snippets", map[string]any{"name": "footer", "blocks": []any{map[string]any{"type": "text", "body": "Footer v1"}}}, http.StatusCreated)
	list := append(blocksOf(t, everyType),
		map[string]any{"type": "text", "body": "A webhook calls you. <script>alert(1)</script> [bad](javascript:alert(1))", "order": 110},
		map[string]any{"type": "snippet", "snippetId": snip["_id"], "order": 120})
	page := e.page(map[string]any{"slug": "home", "title": "Home", "blocks": list})
	html := page["html"].(string)
	assert.True(t, strings.HasPrefix(html, "<!DOCTYPE html>"))
	assert.NotContains(t, html, "<script")
	assert.NotContains(t, html, "javascript:")
	assert.Contains(t, html, `class="glossary-term"`)
	assert.Contains(t, html, "Footer v1")
	assert.Contains(t, html, "youtube-nocookie.com/embed/dQw4w9WgXcQ")
	assert.Equal(t, []any{snip["_id"]}, page["snippetIds"])
	assert.NotEmpty(t, page["glossaryTerms"])
	assert.NotEmpty(t, page["toc"])

	// A change of the snippet re-renders the pages that include it.
	e.do(http.MethodPatch, "/cms/snippets/"+snip["_id"].(string), map[string]any{"blocks": []any{map[string]any{"type": "text", "body": "Footer v2"}}}, http.StatusOK)
	e.eventually(page["_id"].(string), func(d store.Doc) bool { return strings.Contains(d["html"].(string), "Footer v2") }, "re-rendered with the snippet")
}

// TestRepublishingAnUnchangedPageHasNoEffect: publishing, saving the same
// content, unpublishing and publishing again never render again.
func TestRepublishingAnUnchangedPageHasNoEffect(t *testing.T) {
	e := newSiteEnv(t)
	page := e.page(map[string]any{"slug": "same", "title": "Same", "blocks": blocksOf(t, everyType)})
	id := page["_id"].(string)
	require.Equal(t, 1, e.p.CountEvents("webpages.rendered"))
	e.publish(id)
	e.do(http.MethodPatch, "/cms/webpages/"+id, map[string]any{"title": "Same"}, http.StatusOK)
	e.settled(id)
	e.do(http.MethodPost, "/cms/webpages/"+id+"/actions/unpublish", nil, http.StatusOK)
	e.publish(id)
	again := e.settled(id)
	assert.Equal(t, page["renderedAt"], again["renderedAt"], "no second render")
	assert.Equal(t, page["renderHash"], again["renderHash"])
	assert.Equal(t, 1, e.p.CountEvents("webpages.rendered"), "no webpages.rendered for an unchanged page")
	assert.Equal(t, 2, e.p.CountEvents("webpages.published"))
	evs, err := e.p.Store.Collection("events").Find(e.p.Ctx(), store.FindOptions{Filter: query.Eq("name", "webpages.rendered")})
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.NotContains(t, evs[0]["data"], "html", "the rendered HTML stays out of events")
	assert.Equal(t, page["renderHash"], evs[0]["data"].(store.Doc)["renderHash"])

	e.do(http.MethodPatch, "/cms/webpages/"+id, map[string]any{"title": "Changed"}, http.StatusOK)
	changed := e.settled(id)
	assert.Contains(t, changed["html"], "<title>Changed</title>")
	assert.Equal(t, 2, e.p.CountEvents("webpages.rendered"))
}

func TestPublicSite(t *testing.T) {
	e := newSiteEnv(t)
	home := e.page(map[string]any{"slug": "home", "title": "Home", "blocks": blocksOf(t, everyType), "customDomain": "www.shop.test"})
	about := e.page(map[string]any{"slug": "about/team", "locale": "de", "title": "Team", "blocks": []any{map[string]any{"type": "text", "body": "Wir"}}})
	draft := e.page(map[string]any{"slug": "draft", "title": "Draft"})
	e.publish(home["_id"].(string))
	e.publish(about["_id"].(string))

	r := e.p.Do(http.MethodGet, "/site/en/home", "", nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, "text/html; charset=utf-8", r.Header.Get("Content-Type"))
	assert.Equal(t, home["html"], string(r.Body))
	etag := r.Header.Get("ETag")
	assert.Equal(t, `"`+home["renderHash"].(string)+`"`, etag)
	assert.Contains(t, r.Header.Get("Cache-Control"), "max-age=")
	assert.Contains(t, r.Header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Equal(t, 304, e.p.Do(http.MethodGet, "/site/en/home", "", nil, "If-None-Match", etag).Status)
	assert.Equal(t, 200, e.p.Do(http.MethodGet, "/site/de/about/team", "", nil).Status, "a slug with slashes")

	for _, path := range []string{"/site/en/draft", "/site/en/nothing", "/site/de/home", "/site/en", "/site/en/" + draft["_id"].(string)} {
		nf := e.p.Do(http.MethodGet, path, "", nil)
		assert.Equal(t, 404, nf.Status, path)
		assert.Equal(t, "text/html; charset=utf-8", nf.Header.Get("Content-Type"), path)
	}
	css := e.p.Do(http.MethodGet, "/site/_/site.css", "", nil)
	assert.Equal(t, 200, css.Status)
	assert.Contains(t, css.Header.Get("Content-Type"), "text/css")

	// The custom domain serves its page at / and the customer's other
	// published pages, and never the API.
	onDomain := func(path string) *testenv.Resp {
		return e.p.Do(http.MethodGet, path, e.tok, nil, "Host", "www.shop.test")
	}
	assert.Equal(t, home["html"], string(onDomain("/").Body))
	assert.Equal(t, 200, onDomain("/site/de/about/team").Status)
	assert.Equal(t, 404, onDomain("/site/en/draft").Status)
	api := rawGet(t, e.p.URL+"/cms/webpages", "www.shop.test") // outside the API, so not checked against its document
	assert.Equal(t, 404, api.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", api.Header.Get("Content-Type"))
	assert.Equal(t, 404, e.p.Do(http.MethodGet, "/", "", nil, "Host", "www.unknown.test").Status)

	// Another customer's pages: on its own domain only, and never A's.
	c, u := e.p.OtherCustomer("shop-b")
	tokB := e.p.TokenFor(c.ID, u.ID, "cms.*")
	b := e.p.Do(http.MethodPost, "/cms/webpages", tokB, map[string]any{"slug": "home", "title": "Home of B", "customDomain": "www.b.test"})
	require.Equal(t, 201, b.Status, "%s", b.Body)
	idB := b.Payload()["_id"].(string)
	require.Eventually(t, func() bool {
		r := e.p.Do(http.MethodPost, "/cms/webpages/"+idB+"/actions/publish", tokB, nil)
		return r.Status == 200 && e.p.Do(http.MethodGet, "/", "", nil, "Host", "www.b.test").Status == 200
	}, time.Minute, 100*time.Millisecond, "B's page is rendered and served on B's domain")
	onB := e.p.Do(http.MethodGet, "/site/en/home", "", nil, "Host", "www.b.test")
	assert.Contains(t, string(onB.Body), "Home of B")
	assert.Equal(t, 404, e.p.Do(http.MethodGet, "/site/de/about/team", "", nil, "Host", "www.b.test").Status, "A's page on B's domain")
	assert.Equal(t, home["html"], string(e.p.Do(http.MethodGet, "/site/en/home", "", nil).Body), "the gateway serves A's site only")

	// Unpublished, the page leaves the site.
	e.do(http.MethodPost, "/cms/webpages/"+home["_id"].(string)+"/actions/unpublish", nil, http.StatusOK)
	assert.Equal(t, 404, e.p.Do(http.MethodGet, "/site/en/home", "", nil).Status)
}

func rawGet(t *testing.T, url, host string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Host = host
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	return res
}

// TestPublishTellsTheRender: a render writes its output only if the page
// did not change since it read it, so a publish landing during a render
// (it moves updatedAt) must signal the render again, or the page would
// keep no output. Without a worker the render waits, and its history
// shows the signals: the save's and the publish's.
func TestPublishTellsTheRender(t *testing.T) {
	f := newCMS(t)
	id := f.page(nil)
	r := f.P.Do(http.MethodPost, "/cms/webpages/"+id+"/actions/publish", f.Admin, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	wid := contract.RenderWorkflowID(f.P.Customer.ID, "webpage", id)
	it := f.P.Temporal.GetWorkflowHistory(context.Background(), wid, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	signals := 0
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if ev.GetEventType() == enums.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED {
			signals++
		}
	}
	assert.Equal(t, 2, signals, "the create's signal and the publish's")
}
