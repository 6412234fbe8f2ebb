package hub_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/store"
)

// hits searches with tok and answers the results' types and ids.
func (e *renderEnv) hits(tok, query string) []map[string]any {
	e.t.Helper()
	r := e.p.Do(http.MethodGet, "/hub/search?"+query, tok, nil)
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return r.List()
}

func ids(hits []map[string]any) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h["_id"].(string))
	}
	return out
}

func TestSearch(t *testing.T) {
	e := newRenderEnv(t)
	parent := e.page("kubernetes", "# Kubernetes\n\nClusters.")
	e.do(http.MethodPost, "/hub/wikipages/"+parent["_id"].(string)+"/actions/publish", nil)
	child := e.post("/hub/wikipages", map[string]any{"kbslug": e.kb, "slug": "deploy", "parentSlug": "kubernetes", "title": "Deploying",
		"body": "Deploy the <b>café</b> service to a kubernetes cluster. Résumé of `<script>` tags."})
	id := child["_id"].(string)
	e.do(http.MethodPost, "/hub/wikipages/"+id+"/actions/publish", nil)
	e.settled(id)
	draft := e.page("draft", "An unpublished kubernetes draft.")
	faq := e.post("/hub/faqs", map[string]any{"slug": "k8s", "question": "What is kubernetes?", "answer": "A container orchestrator."})
	gloss := e.post("/hub/glossaries", map[string]any{"term": "Kubernetes", "definition": "Container orchestration."})

	other, user := e.p.OtherCustomer("searcher")
	otherTok := e.p.TokenFor(other.ID, user.ID, "hub.*")
	r := e.p.Do(http.MethodPost, "/hub/faqs", otherTok, map[string]any{"slug": "k8s", "question": "Kubernetes at B?", "answer": "Theirs."})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)

	t.Run("every kind, ranked, for an editor", func(t *testing.T) {
		got := ids(e.hits(e.tok, "q=kubernetes&limit=10"))
		assert.ElementsMatch(t, []string{parent["_id"].(string), id, draft["_id"].(string), faq["_id"].(string), gloss["_id"].(string)}, got)
	})
	t.Run("viewers see published pages only", func(t *testing.T) {
		got := ids(e.hits(e.p.Token("hub.wikipages.view"), "q=kubernetes"))
		assert.ElementsMatch(t, []string{parent["_id"].(string), id}, got)
	})
	t.Run("each kind needs its view right", func(t *testing.T) {
		got := ids(e.hits(e.p.Token("hub.faqs.view"), "q=kubernetes"))
		assert.Equal(t, []string{faq["_id"].(string)}, got)
	})
	t.Run("another customer sees only its own", func(t *testing.T) {
		got := e.hits(otherTok, "q=kubernetes")
		require.Len(t, got, 1)
		assert.Equal(t, "Kubernetes at B?", got[0]["title"])
	})
	t.Run("highlights, escaping and cross-references", func(t *testing.T) {
		e.eventually(id, func(d store.Doc) bool { return len(store.Strings(d["glossaryTerms"])) > 0 }, "the new term is linked")
		got := e.hits(e.tok, "q=cafe+resume&kbslug=docs")
		require.NotEmpty(t, got)
		hit := got[0]
		assert.Equal(t, id, hit["_id"])
		assert.Equal(t, "wikipage", hit["type"])
		joined := ""
		for _, h := range hit["highlights"].([]any) {
			joined += h.(string)
		}
		assert.Contains(t, joined, "<mark>café</mark>")
		assert.Contains(t, joined, "&lt;script&gt;")
		assert.NotContains(t, joined, "<script")
		assert.Equal(t, map[string]any{"slug": "docs", "title": "Docs"}, hit["knowledgebase"])
		assert.Equal(t, "kubernetes", hit["parent"].(map[string]any)["slug"])
		assert.Contains(t, hit["terms"], "Kubernetes")
	})
	t.Run("prefix of the last word", func(t *testing.T) {
		assert.Contains(t, ids(e.hits(e.tok, "q=kuber")), id)
	})
	t.Run("bad queries", func(t *testing.T) {
		for _, q := range []string{"", "q=", "q=x&limit=0", "q=x&limit=51", "q=x&kbslug=Not+A+Slug"} {
			r := e.p.Do(http.MethodGet, "/hub/search?"+q, e.tok, nil)
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", q, r.Body)
		}
	})
	t.Run("no right to any kind", func(t *testing.T) {
		r := e.p.Do(http.MethodGet, "/hub/search?q=x", e.p.Token("hub.knowledgebases.view"), nil)
		assert.Equal(t, http.StatusForbidden, r.Status)
	})
}
