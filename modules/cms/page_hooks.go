package cms

import (
	"context"
	"errors"
	"fmt"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/cms/blocks"
	"platform/modules/cms/pages"
)

// checkPage checks what the declaration cannot: the slug's and domain's
// form, the blocks' own rules and the snippets they use; it gives new
// blocks their ids and claims a new custom domain.
func (d Deps) checkPage(ctx context.Context, w *resource.Write) error {
	errs := pageFormErrors(w.New)
	more, err := checkBlocks(ctx, w, "")
	if err != nil {
		return err
	}
	if errs = append(errs, more...); len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return d.claimDomain(ctx, w)
}

func pageFormErrors(page store.Doc) []resource.ErrorEntry {
	var errs []resource.ErrorEntry
	if !pages.ValidSlug(str(page["slug"])) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, "slug",
			"a slug is a path of lower-case letters and digits joined by hyphens, segments separated by slashes, such as products/red-shoes"))
	}
	if host, ok := page["customDomain"].(string); ok && !pages.ValidHost(host) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, "customDomain",
			"a custom domain is a lower-case host name such as www.example.com, without scheme, port or path"))
	}
	return errs
}

// checkBlocks validates the blocks of a page or of the snippet self and
// gives new blocks their ids.
func checkBlocks(ctx context.Context, w *resource.Write, self string) ([]resource.ErrorEntry, error) {
	list, _ := w.New["blocks"].([]any)
	if errs := blocks.Check(list); len(errs) > 0 {
		return errs, nil
	}
	blocks.AssignIDs(list, store.NewID)
	bad, err := pages.CheckSnippetCycle(ctx, w.Service.Store, self, list)
	if bad == "" {
		return nil, err
	}
	return []resource.ErrorEntry{resource.FieldError(resource.CodeInvalid, snippetField(list, bad), "%s", err.Error())}, nil
}

// snippetField names the first block that references the snippet.
func snippetField(list []any, snippet string) string {
	for i, b := range list {
		if d, _ := b.(store.Doc); d["snippetId"] == snippet {
			return fmt.Sprintf("blocks[%d].snippetId", i)
		}
	}
	return "blocks"
}

// claimDomain claims a page's new custom domain (the old one is released
// once the write is stored).
func (d Deps) claimDomain(ctx context.Context, w *resource.Write) error {
	host, _ := w.New["customDomain"].(string)
	if host == "" || (w.Old != nil && w.Old["customDomain"] == host) {
		return nil
	}
	err := pages.ClaimDomain(ctx, w.Service.Store, host, idOf(w.New))
	if errors.Is(err, pages.ErrDomainTaken) {
		return resource.Conflict("customDomain", "%s is already the custom domain of another page", host)
	}
	return err
}

// pageWritten schedules the page's render and releases a custom domain
// the page gave up.
func (d Deps) pageWritten(ctx context.Context, s *resource.Service, saved, old store.Doc) error {
	if host := str(old["customDomain"]); host != "" && host != saved["customDomain"] {
		if err := pages.ReleaseDomain(ctx, s.Store, host, idOf(saved)); err != nil {
			return err
		}
	}
	return d.render(ctx, idOf(saved))
}

// pageDeleted releases the page's custom domain.
func (d Deps) pageDeleted(ctx context.Context, s *resource.Service, old store.Doc) error {
	if host := str(old["customDomain"]); host != "" {
		return pages.ReleaseDomain(ctx, s.Store, host, idOf(old))
	}
	return nil
}
