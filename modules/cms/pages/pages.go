// Package pages is the CMS's service for web pages: their collections,
// the snippets they use, the custom domains they claim, and the render
// step the shared render workflow runs (Renderer). It holds no HTTP: the
// cms module's handlers, the render activities and the tests call it.
package pages

import (
	"context"
	"regexp"

	"platform/kernel/query"
	"platform/kernel/store"
)

// The CMS's collections; Domains is global: a custom domain names one
// page of one customer.
const (
	Pages       = "webpages"
	Snippets    = "snippets"
	AILibraries = "ailibraries"
	Domains     = "sitedomains"
)

// Kind is the render workflow's kind for web pages.
const Kind = "webpage"

// EventRendered is the verb of the event a render that changed a page's
// output emits (webpages.rendered).
const EventRendered = "rendered"

// MaxHTML bounds a page's rendered document (bytes): a render past it
// fails and the page keeps its last good output.
const MaxHTML = 3_000_000

// MaxSnippetDepth bounds snippets within snippets.
const MaxSnippetDepth = 8

// slugPattern is a URL path without locale: segments of lower-case
// letters and digits joined by hyphens, separated by slashes.
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*$`)

// ValidSlug reports whether s is a page's path.
func ValidSlug(s string) bool { return len(s) <= 200 && slugPattern.MatchString(s) }

// hostPattern is a DNS host name: labels of letters, digits and inner
// hyphens, at least two of them, the last not all digits.
var hostPattern = regexp.MustCompile(`^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidHost reports whether s is a lower-case host name (no port, no IP).
func ValidHost(s string) bool { return len(s) <= 253 && hostPattern.MatchString(s) }

// UsingSnippet lists the pages of the customer that include the snippet:
// directly, or through another snippet at their last render.
func UsingSnippet(ctx context.Context, s store.Store, snippet string) ([]string, error) {
	docs, err := s.Collection(Pages).Find(ctx, store.FindOptions{Fields: []string{"_id"},
		Filter: query.Or{Exprs: []query.Expr{query.Eq("blocks.snippetId", snippet), usesAny([]string{snippet})}}})
	return ids(docs), err
}

// usesAny matches pages whose last render included one of the snippets
// or linked one of the wiki targets.
func usesAny(targets []string) query.Expr {
	in := []query.Cond{query.In{Values: store.List(targets)}}
	return query.Or{Exprs: []query.Expr{query.Field{Path: "snippetIds", Conds: in}, query.Field{Path: "links", Conds: in}}}
}

func ids(docs []store.Doc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = str(d["_id"])
	}
	return out
}

func str(v any) string { s, _ := v.(string); return s }
