package cms

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/cms/pages"
)

// maxCopies bounds the search for a free <slug>-copy-<n>.
const maxCopies = 100

// duplicatePage creates an unpublished copy under the first free slug;
// the custom domain stays with the original (it names one page).
func duplicatePage(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	slug, err := freeSlug(ctx, call.Service.Store, str(call.Record["slug"]), str(call.Record["locale"]))
	if err != nil {
		return nil, err
	}
	body := clientFields(call.Record)
	body["slug"] = slug
	delete(body, "customDomain")
	page, err := call.Service.CreateWith(ctx, call.Resource, body, store.Doc{"duplicateOf": call.ID})
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: page}, nil
}

// freeSlug is <slug>-copy, or <slug>-copy-<n> with the least n free.
func freeSlug(ctx context.Context, s store.Store, slug, locale string) (string, error) {
	candidates := make([]any, maxCopies)
	for n := range candidates {
		candidates[n] = copySlug(slug, n+1)
	}
	docs, err := s.Collection(pages.Pages).Find(ctx, store.FindOptions{Fields: []string{"slug"},
		Filter: query.AllOf(query.Eq("locale", locale), query.Field{Path: "slug", Conds: []query.Cond{query.In{Values: candidates}}})})
	if err != nil {
		return "", err
	}
	taken := map[string]bool{}
	for _, d := range docs {
		taken[str(d["slug"])] = true
	}
	for n := 1; n <= maxCopies; n++ {
		if c := copySlug(slug, n); !taken[c] && pages.ValidSlug(c) {
			return c, nil
		}
	}
	return "", resource.Conflict("slug", "the page has %d copies already: rename some first", maxCopies)
}

func copySlug(slug string, n int) string {
	if n == 1 {
		return slug + "-copy"
	}
	return fmt.Sprintf("%s-copy-%d", slug, n)
}

// clientFields are the fields of a page a client writes, in the form a
// client sends them (JSON numbers), so a copy is validated as any page.
func clientFields(page store.Doc) map[string]any {
	body := map[string]any{}
	for _, k := range []string{"slug", "locale", "title", "description", "blocks", "customDomain"} {
		if v, ok := page[k]; ok {
			body[k] = asClientJSON(v)
		}
	}
	return body
}

// asClientJSON is v as a JSON body decodes: numbers as json.Number.
func asClientJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return v
	}
	return out
}
