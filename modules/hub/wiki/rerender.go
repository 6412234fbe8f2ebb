package wiki

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"platform/kernel/render"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/search"
	"platform/workflows/contract"
)

// rerender renders the page, indexes it and writes the output with its
// hash in one change, announced as wikipages.rendered. A failed render
// writes renderError only.
func (rd *Renderer) rerender(ctx context.Context, page store.Doc, in render.Input, hash string) (contract.RenderOutput, error) {
	out, err := render.Render(in)
	if err == nil && len(out.HTML) > MaxHTML {
		err = fmt.Errorf("the rendered page would be larger than %d bytes", MaxHTML)
	}
	if err != nil {
		_, werr := rd.apply(ctx, page, resource.Change{Set: store.Doc{"renderError": err.Error()}})
		if werr != nil {
			return contract.RenderOutput{}, werr
		}
		return contract.RenderOutput{}, failed(err)
	}
	set := store.Doc{"bodyHtml": out.HTML, "toc": tocDocs(out.TOC), "links": store.List(render.CrossLinks(in.Body, in.Format)),
		"brokenLinks": store.List(out.BrokenLinks), "glossaryTerms": store.List(termNames(in.Glossary, out.Terms)),
		"renderHash": hash, "renderedAt": now()}
	page = merge(page, set)
	sh := searchHash(page)
	if err := rd.Index.Put(ctx, searchDoc(page)); err != nil {
		return contract.RenderOutput{}, err
	}
	set["searchHash"] = sh
	_, err = rd.apply(ctx, page, resource.Change{Set: set, Unset: []string{"renderError"}, Event: EventRendered})
	return contract.RenderOutput{Rendered: true, Indexed: true}, err
}

// reindex brings the search entry of a page whose output is current up to
// date (after a publish, a new title or parent); nothing when it is.
func (rd *Renderer) reindex(ctx context.Context, page store.Doc) (contract.RenderOutput, error) {
	sh := searchHash(page)
	if sh == page["searchHash"] {
		return contract.RenderOutput{}, nil
	}
	if err := rd.Index.Put(ctx, searchDoc(page)); err != nil {
		return contract.RenderOutput{}, err
	}
	_, err := rd.apply(ctx, page, resource.Change{Set: store.Doc{"searchHash": sh}})
	return contract.RenderOutput{Indexed: true}, err
}

// apply writes c to the page unless a newer save changed its body since
// it was read: that save's own render follows (NotFound is then no error).
func (rd *Renderer) apply(ctx context.Context, page store.Doc, c resource.Change) (store.Doc, error) {
	return rd.Service.ApplyIfUnchanged(ctx, rd.Service.Registry.ByPlural(Pages), page, c)
}

func searchDoc(page store.Doc) search.Doc {
	return search.Doc{Type: search.TypeWikiPage, ID: str(page["_id"]), Title: str(page["title"]), Text: PlainText(str(page["bodyHtml"])),
		KB: str(page["kbslug"]), Parent: str(page["parentSlug"]), Published: page["published"] == true,
		Terms: store.Strings(page["glossaryTerms"])}
}

// searchHash covers everything searchDoc takes from the page.
func searchHash(page store.Doc) string {
	published := "0"
	if page["published"] == true {
		published = "1"
	}
	parts := []string{str(page["renderHash"]), str(page["title"]), str(page["kbslug"]), str(page["parentSlug"]), published,
		strings.Join(store.Strings(page["glossaryTerms"]), "\x1f")}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x1e")))
	return hex.EncodeToString(sum[:])
}
