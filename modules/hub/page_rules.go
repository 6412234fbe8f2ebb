package hub

import (
	"context"
	"errors"

	"platform/kernel/render"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/wiki"
)

// maxTags bounds a page's tags.
const maxTags = 50

// checkPage checks what the declarations cannot: the slugs' form, the
// knowledge base, the parent and the hierarchy, and the order.
func checkPage(ctx context.Context, w *resource.Write) error {
	if err := checkPageForm(w.New); err != nil {
		return err
	}
	pages := wiki.Hierarchy{Store: w.Service.Store}
	if err := checkBase(ctx, w); err != nil {
		return err
	}
	if err := checkParent(ctx, pages, w); err != nil {
		return err
	}
	return placeInParent(ctx, pages, w)
}

func checkPageForm(doc store.Doc) error {
	var errs []resource.ErrorEntry
	for _, f := range []string{"slug", "parentSlug"} {
		if v, ok := doc[f].(string); ok && !slugPattern.MatchString(v) {
			errs = append(errs, resource.FieldError(resource.CodeFormat, f, "a slug is lower-case letters and digits joined by single hyphens, such as getting-started"))
		}
	}
	if len(str(doc["body"])) > wiki.MaxBodyBytes {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "body", "the body is larger than %d bytes", wiki.MaxBodyBytes))
	}
	if n := len(render.CrossLinks(str(doc["body"]), str(doc["contentFormat"]))); n > wiki.MaxLinks {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "body", "the body links to %d wiki pages; at most %d", n, wiki.MaxLinks))
	}
	if len(store.Strings(doc["tags"])) > maxTags {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "tags", "at most %d tags", maxTags))
	}
	if o, ok := doc["order"].(int64); ok && (o < 0 || o%wiki.OrderStep != 0) {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "order", "order is a multiple of %d, 0 or more (the move action renumbers siblings)", wiki.OrderStep))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

// checkBase refuses a kbslug that names no knowledge base of the
// customer, and a move to another one while the page has children.
func checkBase(ctx context.Context, w *resource.Write) error {
	kb, _ := w.New["kbslug"].(string)
	ok, err := wiki.BaseExists(ctx, w.Service.Store, kb)
	if err != nil {
		return err
	}
	if !ok {
		return resource.InvalidField("kbslug", "no knowledge base of this customer has the slug %q", kb)
	}
	if w.Old == nil || (w.Old["kbslug"] == kb && w.Old["slug"] == w.New["slug"]) {
		return nil
	}
	return refuseIfParent(ctx, w.Service.Store, w.Old, "the page has %d child pages: move them first, then change its slug or knowledge base")
}

// checkParent refuses a parent missing from the page's knowledge base, the
// page itself, a descendant (a cycle) and a chain deeper than MaxDepth.
func checkParent(ctx context.Context, pages wiki.Hierarchy, w *resource.Write) error {
	parent, _ := w.New["parentSlug"].(string)
	if parent == "" {
		return nil
	}
	kb, slug := w.New["kbslug"].(string), w.New["slug"].(string)
	if parent == slug {
		return resource.InvalidField("parentSlug", "a page cannot be its own parent")
	}
	chain, err := pages.Ancestors(ctx, kb, parent)
	if errors.Is(err, wiki.ErrNoPage) {
		return resource.InvalidField("parentSlug", "no page of the knowledge base %q has the slug %q", kb, parent)
	}
	if errors.Is(err, wiki.ErrTooDeep) {
		return resource.InvalidField("parentSlug", "the hierarchy would be deeper than %d levels", wiki.MaxDepth)
	}
	if err != nil {
		return err
	}
	for _, s := range chain {
		if s == slug {
			return resource.InvalidField("parentSlug", "%q is below this page: a page cannot move under its own descendant", parent)
		}
	}
	return nil
}

// placeInParent puts a new page, or one moved to another parent without an
// order of its own, last among its siblings.
func placeInParent(ctx context.Context, pages wiki.Hierarchy, w *resource.Write) error {
	_, hasOrder := w.New["order"].(int64)
	moved := w.Old != nil && (w.Old["parentSlug"] != w.New["parentSlug"] || w.Old["kbslug"] != w.New["kbslug"]) && w.Old["order"] == w.New["order"]
	if hasOrder && !moved {
		return nil
	}
	last, err := pages.LastOrder(ctx, w.New["kbslug"].(string), parentOf(w.New))
	w.New["order"] = last + wiki.OrderStep
	return err
}

func parentOf(doc store.Doc) string { p, _ := doc["parentSlug"].(string); return p }

// refuseParentDelete keeps pages from losing their parent.
func refuseParentDelete(ctx context.Context, s *resource.Service, old store.Doc) error {
	return refuseIfParent(ctx, s.Store, old, "the page has %d child pages: move or delete them first")
}

func refuseIfParent(ctx context.Context, s store.Store, page store.Doc, msg string) error {
	n, err := wiki.Hierarchy{Store: s}.Children(ctx, page["kbslug"].(string), page["slug"].(string))
	if err != nil || n == 0 {
		return err
	}
	return resource.Conflict("slug", msg, n)
}
