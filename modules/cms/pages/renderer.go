package pages

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/render"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/cms/blocks"
	"platform/workflows/contract"
)

// Glossary gives what a page's Markdown is rendered against: the
// customer's glossary and the public URLs of the wiki pages it links to
// (the hub's wiki.Renderer).
type Glossary interface {
	Glossary(ctx context.Context) ([]render.Term, error)
	Resolve(ctx context.Context, targets []string) (map[string]string, error)
}

// Renderer is the render step of web pages: the hash check, the render
// through blocks.Render (kernel/render for Markdown), and the write of
// the output through the record service, announced as webpages.rendered.
type Renderer struct {
	Service  *resource.Service
	Glossary Glossary
	// CSS is the stylesheet's URL in rendered pages.
	CSS string
}

// Render renders the page id of the customer in ctx when its inputs
// changed since the last render. A page that cannot render keeps its last
// good output, shows why in renderError, and fails with the non-retryable
// contract.ErrTypeRenderFailed.
func (rd *Renderer) Render(ctx context.Context, id string) (contract.RenderOutput, error) {
	page, err := rd.Service.Store.Collection(Pages).Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return contract.RenderOutput{}, nil
	}
	if err != nil {
		return contract.RenderOutput{}, err
	}
	in, err := rd.Inputs(ctx, page)
	if err != nil {
		return contract.RenderOutput{}, err
	}
	hash := blocks.Hash(in)
	if hash == page["renderHash"] && page["renderError"] == nil {
		return contract.RenderOutput{}, nil
	}
	return rd.rerender(ctx, page, in, hash)
}

// Inputs gathers what the page's output depends on: its fields and
// blocks, the snippets they use, the glossary and the link targets.
func (rd *Renderer) Inputs(ctx context.Context, page store.Doc) (blocks.Input, error) {
	list, _ := page["blocks"].([]any)
	in := blocks.Input{Title: str(page["title"]), Description: str(page["description"]), Locale: str(page["locale"]),
		Blocks: list, SiteCSS: rd.CSS}
	var err error
	if in.Snippets, err = LoadSnippets(ctx, rd.Service.Store, list); err != nil {
		return in, err
	}
	if in.Glossary, err = rd.Glossary.Glossary(ctx); err != nil {
		return in, err
	}
	in.Links, err = rd.Glossary.Resolve(ctx, crossLinks(in))
	return in, err
}

// crossLinks are the wiki:<kb>/<slug> targets of every Markdown field of
// the page and of the snippets it uses.
func crossLinks(in blocks.Input) []string {
	seen := map[string]bool{}
	var out []string
	add := func(list []any) {
		for _, t := range blocks.Texts(list) {
			if !t.Markdown {
				continue
			}
			for _, target := range render.CrossLinks(t.Value, render.Markdown) {
				if !seen[target] {
					seen[target] = true
					out = append(out, target)
				}
			}
		}
	}
	add(in.Blocks)
	for _, s := range in.Snippets {
		add(s)
	}
	return out
}

// rerender renders the page and writes the output with its hash in one
// change, announced as webpages.rendered. A failed render writes
// renderError only.
func (rd *Renderer) rerender(ctx context.Context, page store.Doc, in blocks.Input, hash string) (contract.RenderOutput, error) {
	out, err := blocks.Render(in)
	if err == nil && len(out.HTML) > MaxHTML {
		err = fmt.Errorf("the rendered page would be larger than %d bytes", MaxHTML)
	}
	if err != nil {
		if werr := rd.apply(ctx, page, resource.Change{Set: store.Doc{"renderError": err.Error()}}); werr != nil {
			return contract.RenderOutput{}, werr
		}
		return contract.RenderOutput{}, failed(err)
	}
	set := store.Doc{"html": out.HTML, "links": store.List(crossLinks(in)), "toc": tocDocs(out.TOC), "glossaryTerms": store.List(out.Terms),
		"brokenLinks": store.List(out.BrokenLinks), "missingSnippets": store.List(out.MissingSnippets),
		"snippetIds": store.List(keys(in.Snippets)), "renderHash": hash, "renderedAt": time.Now().UTC().Truncate(time.Millisecond)}
	err = rd.apply(ctx, page, resource.Change{Set: set, Unset: []string{"renderError"}, Event: EventRendered})
	return contract.RenderOutput{Rendered: err == nil}, err
}

// apply writes c to the page unless a newer save changed it since it was
// read: that save's own render follows.
func (rd *Renderer) apply(ctx context.Context, page store.Doc, c resource.Change) error {
	_, err := rd.Service.ApplyIfUnchanged(ctx, rd.Service.Registry.ByPlural(Pages), page, c)
	return err
}

func tocDocs(toc []render.Heading) []any {
	out := make([]any, len(toc))
	for i, h := range toc {
		out[i] = store.Doc{"level": int64(h.Level), "id": h.ID, "text": h.Text}
	}
	return out
}

// failed is a render that cannot succeed with these inputs.
func failed(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrTypeRenderFailed, err)
}

// Affected lists the pages that include the snippets or link to the wiki
// pages named in targets (snippet ids, "<kb>/<slug>"). A glossary change
// (words) concerns every page: any text may mention a new term, and a
// render whose inputs did not change costs a hash check only.
func (rd *Renderer) Affected(ctx context.Context, words, targets []string) ([]string, error) {
	opts := store.FindOptions{Fields: []string{"_id"}, Filter: usesAny(targets)}
	if len(words) > 0 {
		opts.Filter = nil
	}
	docs, err := rd.Service.Store.Collection(Pages).Find(ctx, opts)
	return ids(docs), err
}
