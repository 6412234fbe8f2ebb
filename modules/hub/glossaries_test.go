package hub_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/kernel/store"
	"platform/test/apitest"
	"platform/test/testenv"
)

func TestFAQsAndGlossaries(t *testing.T) {
	f := newHub(t)
	faq := func(f *hubFixture) apitest.IDs {
		slug := "reset-" + store.NewID()[16:]
		return apitest.IDs{"s": slug, "faq": f.Create("/hub/faqs", map[string]any{"slug": slug, "question": "How do I reset?", "answer": "Click **reset**."})}
	}
	entry := func(f *hubFixture) apitest.IDs {
		x := store.NewID()[16:]
		w := "Webhook" + x
		return apitest.IDs{"t": w, "x": x, "g": f.Create("/hub/glossaries", map[string]any{"term": w, "definition": "An HTTP callback.", "aliases": []string{"web " + w}})}
	}
	apitest.Run(t, f, []hubScenario{
		{Name: "create an FAQ", Method: "POST", Path: "/hub/faqs", Status: 201, Events: []string{"faqs.created"},
			Body: map[string]any{"slug": "billing", "question": "Where is my invoice?", "answer": "In *Billing*.", "category": "billing"}},
		{Name: "an FAQ needs an answer", Method: "POST", Path: "/hub/faqs", Status: 422, Field: "answer",
			Body: map[string]any{"slug": "q", "question": "Q?"}},
		{Name: "FAQ slugs are unique", Given: faq, Method: "POST", Path: "/hub/faqs", Status: 409, Field: "slug",
			Body: map[string]any{"slug": "{s}", "question": "Q?", "answer": "A."}},
		{Name: "get an FAQ by slug", Given: faq, Method: "GET", Path: "/hub/faqs/{s}", Status: 200},
		{Name: "PATCH an FAQ", Given: faq, Method: "PATCH", Path: "/hub/faqs/{faq}", Body: map[string]any{"category": "account"}, Status: 200,
			Events: []string{"faqs.updated"}},
		{Name: "DELETE an FAQ", Given: faq, Method: "DELETE", Path: "/hub/faqs/{faq}", Status: 200, Events: []string{"faqs.deleted"}},
		{Name: "FAQ rights", Method: "POST", Path: "/hub/faqs", Scopes: []string{"hub.faqs.view"}, Status: 403,
			Body: map[string]any{"slug": "q", "question": "Q?", "answer": "A."}},
		{Name: "create a glossary entry", Method: "POST", Path: "/hub/glossaries", Status: 201, Events: []string{"glossaries.created"},
			Body: map[string]any{"term": "API", "definition": "An *interface*.", "aliases": []string{"APIs"}},
			Then: func(f *hubFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "api", r.Payload()["termKey"])
				assert.Equal(f.T, []any{"api", "apis"}, r.Payload()["keys"])
			}},
		{Name: "terms are unique case-insensitively", Given: entry, Method: "POST", Path: "/hub/glossaries", Status: 409, Field: "term",
			Body: map[string]any{"term": "  WEBHOOK{x}  ", "definition": "x"}},
		{Name: "a term may not be another entry's alias", Given: entry, Method: "POST", Path: "/hub/glossaries", Status: 409, Field: "term",
			Body: map[string]any{"term": "WEB {t}", "definition": "x"}},
		{Name: "an alias may not be another entry's term", Given: entry, Method: "POST", Path: "/hub/glossaries", Status: 409, Field: "aliases.0",
			Body: map[string]any{"term": "Callback", "definition": "x", "aliases": []string{"{t}"}}},
		{Name: "an alias may not repeat the term", Method: "POST", Path: "/hub/glossaries", Status: 422, Field: "aliases.0",
			Body: map[string]any{"term": "Queue", "definition": "x", "aliases": []string{"queue"}}},
		{Name: "an entry keeps its own term when changed", Given: entry, Method: "PATCH", Path: "/hub/glossaries/{g}", Status: 200,
			Body: map[string]any{"definition": "A callback over HTTP."}, Events: []string{"glossaries.updated"}},
		{Name: "keys are read-only", Method: "POST", Path: "/hub/glossaries", Status: 422, Field: "keys",
			Body: map[string]any{"term": "X", "definition": "x", "keys": []string{"y"}}},
		{Name: "DELETE a glossary entry", Given: entry, Method: "DELETE", Path: "/hub/glossaries/{g}", Status: 200, Events: []string{"glossaries.deleted"}},
		{Name: "glossary rights", Method: "POST", Path: "/hub/glossaries", Scopes: []string{"hub.glossaries.view"}, Status: 403,
			Body: map[string]any{"term": "X", "definition": "x"}},
	})
}
