package hub_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/crm"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// renderEnv is a platform with a worker, so saved pages are rendered.
type renderEnv struct {
	t   *testing.T
	p   *testenv.Platform
	tok string
	kb  string
}

func newRenderEnv(t *testing.T) *renderEnv {
	t.Helper()
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	p.CheckOpenAPI("hub")
	e := &renderEnv{t: t, p: p, tok: p.Token("hub.*")}
	e.kb = "docs"
	e.post("/hub/knowledgebases", map[string]any{"slug": e.kb, "title": "Docs"})
	return e
}

func (e *renderEnv) post(path string, body map[string]any) store.Doc {
	e.t.Helper()
	r := e.p.Do(http.MethodPost, path, e.tok, body)
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.Payload()
}

func (e *renderEnv) do(method, path string, body any) store.Doc {
	e.t.Helper()
	r := e.p.Do(method, path, e.tok, body)
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return r.Payload()
}

// page creates a page and waits for its first render.
func (e *renderEnv) page(slug, body string) store.Doc {
	e.t.Helper()
	id := e.post("/hub/wikipages", map[string]any{"kbslug": e.kb, "slug": slug, "title": "Page " + slug, "body": body})["_id"].(string)
	return e.settled(id)
}

// settled waits until the page's render workflow has nothing left to do
// and answers the page as stored.
func (e *renderEnv) settled(id string) store.Doc {
	e.t.Helper()
	e.p.AwaitWorkflow(contract.RenderWorkflowID(e.p.Customer.ID, "wikipage", id))
	return e.p.Stored("wikipages", id)
}

func (e *renderEnv) eventually(id string, cond func(store.Doc) bool, msg string) store.Doc {
	e.t.Helper()
	return e.p.EventuallyStored("wikipages", id, cond, msg)
}

func TestRenderPipeline(t *testing.T) {
	e := newRenderEnv(t)
	e.post("/hub/glossaries", map[string]any{"term": "Webhook", "definition": "An HTTP *callback*.", "aliases": []string{"web hook"}})
	target := e.page("target", "# Target")
	body := "# Guide\n\nA webhook calls you. Another webhook.\n\n## Setup\n\nA web hook again. `webhook` in code.\n\n" +
		"See [the target](wiki:docs/target) and [nothing](wiki:docs/missing).\n\n<script>alert(1)</script>\n\n" +
		"[bad](javascript:alert(1))\n\n```mermaid\ngraph TD; A-->B;\n```\n"
	page := e.page("guide", body)
	html := page["bodyHtml"].(string)
	assert.NotContains(t, html, "<script")
	assert.NotContains(t, html, "javascript:")
	assert.Equal(t, 2, strings.Count(html, `class="glossary-term"`), "first mention per section: %s", html)
	assert.Contains(t, html, `href="`+e.p.Config.HubSiteURL+`/docs/target"`)
	assert.Contains(t, html, `<pre class="mermaid">`)
	assert.Contains(t, html, `id="setup"`)
	assert.Equal(t, []any{"docs/missing"}, page["brokenLinks"])
	assert.Equal(t, []any{"Webhook"}, page["glossaryTerms"])
	assert.Len(t, page["toc"], 2)
	assert.NotEmpty(t, target["renderHash"])

	// A dangling link resolves once its page exists.
	e.page("missing", "# Now here")
	e.eventually(page["_id"].(string), func(d store.Doc) bool { return len(store.Strings(d["brokenLinks"])) == 0 }, "re-rendered")
	// A new glossary term re-renders the pages that use it.
	e.post("/hub/glossaries", map[string]any{"term": "Calls", "definition": "What a webhook does."})
	got := e.eventually(page["_id"].(string), func(d store.Doc) bool { return len(store.Strings(d["glossaryTerms"])) == 2 }, "linked")
	assert.ElementsMatch(t, []string{"Webhook", "Calls"}, store.Strings(got["glossaryTerms"]))
}

// TestRenderIsIdempotent: saving or publishing a page again without a
// change of its inputs changes nothing and emits nothing.
func TestRenderIsIdempotent(t *testing.T) {
	e := newRenderEnv(t)
	page := e.page("same", "# Same\n\ntext")
	id := page["_id"].(string)
	rendered := e.p.CountEvents("wikipages.rendered")
	require.Equal(t, 1, rendered)
	e.do(http.MethodPatch, "/hub/wikipages/"+id, map[string]any{"body": "# Same\n\ntext"})
	again := e.settled(id)
	assert.Equal(t, page["renderedAt"], again["renderedAt"], "no second render")
	assert.Equal(t, page["bodyHtml"], again["bodyHtml"])
	e.do(http.MethodPost, "/hub/wikipages/"+id+"/actions/publish", nil)
	e.settled(id)
	e.do(http.MethodPost, "/hub/wikipages/"+id+"/actions/publish", nil)
	published := e.settled(id)
	assert.Equal(t, page["renderedAt"], published["renderedAt"])
	assert.Equal(t, rendered, e.p.CountEvents("wikipages.rendered"), "no wikipages.rendered for an unchanged page")
	assert.Equal(t, 1, e.p.CountEvents("wikipages.published"), "publishing a published page emits nothing")

	e.do(http.MethodPatch, "/hub/wikipages/"+id, map[string]any{"body": "# Changed"})
	changed := e.settled(id)
	assert.Contains(t, changed["bodyHtml"], "Changed")
	assert.Equal(t, rendered+1, e.p.CountEvents("wikipages.rendered"))
}

// TestFailedRenderKeepsTheLastGoodOutput: a page nested deeper than the
// renderer allows (1,000 block quotes) keeps its bodyHtml, shows why, and files a Bug task.
func TestFailedRenderKeepsTheLastGoodOutput(t *testing.T) {
	e := newRenderEnv(t)
	page := e.page("big", "# Good")
	id := page["_id"].(string)
	e.do(http.MethodPatch, "/hub/wikipages/"+id, map[string]any{"body": strings.Repeat(">", 1000) + " deep"})
	failed := e.settled(id)
	assert.Equal(t, page["bodyHtml"], failed["bodyHtml"])
	assert.Contains(t, failed["renderError"], "deep")
	bugs, err := e.p.Store.Collection("tasks").Count(e.p.Ctx(), query.Eq("type", crm.TypeBug))
	require.NoError(t, err)
	assert.EqualValues(t, 1, bugs)

	e.do(http.MethodPatch, "/hub/wikipages/"+id, map[string]any{"body": "# Fixed"})
	fixed := e.settled(id)
	assert.Contains(t, fixed["bodyHtml"], "Fixed")
	assert.NotContains(t, fixed, "renderError")
}
