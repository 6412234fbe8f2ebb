package wiki

import (
	"context"
	"errors"
	"net/url"
	"time"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/query"
	"platform/kernel/render"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/search"
	"platform/workflows/contract"
)

// maxGlossary bounds the glossary entries a render links.
const maxGlossary = 10_000

// Indexer keeps the search index (search.Index).
type Indexer interface {
	Finder
	Put(ctx context.Context, d search.Doc) error
	Remove(ctx context.Context, typ, id string) error
}

// Renderer is the render step of wiki pages: the hash check, the render
// through kernel/render, the search index, and the write of the output
// through the record service, announced as wikipages.rendered.
type Renderer struct {
	Service *resource.Service
	Index   Indexer
	// SiteURL is the base of the pages' public addresses: a page is at
	// <SiteURL>/<kb>/<slug>, the glossary at <SiteURL>/glossary.
	SiteURL string
}

// Render renders the page id of the customer in ctx when its inputs
// changed since the last render, and brings its search entry up to date.
// A page that is gone leaves the index; a page that cannot render keeps
// its last good output, shows why in renderError, and fails with the
// non-retryable contract.ErrTypeRenderFailed.
func (rd *Renderer) Render(ctx context.Context, id string) (contract.RenderOutput, error) {
	page, err := rd.Service.Store.Collection(Pages).Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return contract.RenderOutput{}, rd.Index.Remove(ctx, search.TypeWikiPage, id)
	}
	if err != nil {
		return contract.RenderOutput{}, err
	}
	in, err := rd.inputs(ctx, page)
	if err != nil {
		return contract.RenderOutput{}, err
	}
	if hash := render.Hash(in); hash != page["renderHash"] || page["renderError"] != nil {
		return rd.rerender(ctx, page, in, hash)
	}
	return rd.reindex(ctx, page)
}

// inputs gathers what the page's output depends on: its content, the
// glossary, and where the pages it links to are.
func (rd *Renderer) inputs(ctx context.Context, page store.Doc) (render.Input, error) {
	in := render.Input{Body: Content(str(page["body"])), Format: str(page["contentFormat"])}
	if in.Format == "" {
		in.Format = "markdown"
	}
	var err error
	if in.Glossary, err = rd.Glossary(ctx); err != nil {
		return in, err
	}
	in.Links, err = rd.Resolve(ctx, render.CrossLinks(in.Body, in.Format))
	return in, err
}

// Glossary is the customer's glossary as the renderer links it (also for
// the CMS's pages).
func (rd *Renderer) Glossary(ctx context.Context) ([]render.Term, error) {
	docs, err := rd.Service.Store.Collection(Glossaries).Find(ctx, store.FindOptions{Limit: maxGlossary,
		Sort: []store.SortField{{Field: "_id"}}, Fields: []string{"term", "aliases", "definition"}})
	terms := make([]render.Term, len(docs))
	for i, d := range docs {
		terms[i] = render.Term{ID: str(d["_id"]), Term: str(d["term"]), Aliases: store.Strings(d["aliases"]),
			Definition: str(d["definition"]), URL: rd.SiteURL + "/glossary#" + str(d["_id"])}
	}
	return terms, err
}

// Resolve maps the targets that name a page of the customer to its URL.
func (rd *Renderer) Resolve(ctx context.Context, targets []string) (map[string]string, error) {
	links := map[string]string{}
	var pairs []query.Expr
	for _, t := range targets {
		if kb, slug, ok := splitTarget(t); ok {
			pairs = append(pairs, query.AllOf(query.Eq("kbslug", kb), query.Eq("slug", slug)))
		}
	}
	if len(pairs) == 0 {
		return links, nil
	}
	docs, err := rd.Service.Store.Collection(Pages).Find(ctx, store.FindOptions{Filter: query.Or{Exprs: pairs}, Fields: []string{"kbslug", "slug"}})
	for _, d := range docs {
		links[Target(d)] = rd.PageURL(str(d["kbslug"]), str(d["slug"]))
	}
	return links, err
}

// PageURL is a page's public address.
func (rd *Renderer) PageURL(kb, slug string) string {
	return rd.SiteURL + "/" + url.PathEscape(kb) + "/" + url.PathEscape(slug)
}

func str(v any) string { s, _ := v.(string); return s }

func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// failed is a render that cannot succeed with these inputs.
func failed(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrTypeRenderFailed, err)
}

// Affected lists the pages that use the words or link to the targets.
func (rd *Renderer) Affected(ctx context.Context, words, targets []string) ([]string, error) {
	return Affected(ctx, rd.Service.Store, rd.Index, words, targets)
}
