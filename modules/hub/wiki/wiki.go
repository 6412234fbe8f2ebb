// Package wiki is the hub's service for wiki pages: their collections,
// front matter, hierarchy, public URLs and the render step the render
// workflow runs (Renderer). It holds no HTTP: the hub module's handlers,
// the workflows' activities and the tests all call it.
package wiki

import (
	"context"
	"strings"

	"platform/kernel/query"
	"platform/kernel/store"
)

// The hub's collections.
const (
	KnowledgeBases = "knowledgebases"
	Pages          = "wikipages"
	FAQs           = "faqs"
	Glossaries     = "glossaries"
)

// Kind is the render workflow's kind for wiki pages.
const Kind = "wikipage"

// EventRendered is the verb of the event a render that changed a page's
// output emits: wikipages.rendered, the specification's wikipage.rendered.
const EventRendered = "rendered"

// PagesIn counts the customer's pages in the knowledge base kb.
func PagesIn(ctx context.Context, s store.Store, kb string) (int64, error) {
	return s.Collection(Pages).Count(ctx, query.Eq("kbslug", kb))
}

// MaxBody bounds a page's raw body (characters), and MaxBodyBytes its
// size in UTF-8, the renderer's own limit.
const (
	MaxBody      = 1_000_000
	MaxBodyBytes = 1 << 20
)

// MaxHTML bounds a page's rendered output (bytes): a render past it
// fails and the page keeps its last good output.
const MaxHTML = 3_000_000

// MaxDepth bounds the page hierarchy: a chain of parents longer than it
// is refused (and a cycle check never walks further).
const MaxDepth = 32

// MaxLinks bounds the distinct wiki pages one page links to: the render
// resolves them in one query, and the page stores them in links.
const MaxLinks = 500

// OrderStep spaces siblings' order values.
const OrderStep = 10

// Target is a page's cross-link target: "<kb>/<slug>".
func Target(page store.Doc) string {
	kb, _ := page["kbslug"].(string)
	slug, _ := page["slug"].(string)
	return kb + "/" + slug
}

// FoldTerm is a glossary term's key: lower case, spaces collapsed.
func FoldTerm(term string) string {
	return strings.ToLower(strings.Join(strings.Fields(term), " "))
}
