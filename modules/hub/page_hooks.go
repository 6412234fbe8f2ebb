package hub

import (
	"context"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/search"
	"platform/modules/hub/wiki"
	"platform/workflows/contract"
)

// pageWritten schedules the page's render; a page that appeared under a
// new address also re-renders the pages that link to it (their dangling
// links may now resolve) or to its old address (which now dangles).
func (d Deps) pageWritten(ctx context.Context, _ *resource.Service, saved, old store.Doc) error {
	if err := d.render(ctx, idOf(saved)); err != nil {
		return err
	}
	if old != nil && wiki.Target(old) == wiki.Target(saved) {
		return nil
	}
	targets := []string{wiki.Target(saved)}
	if old != nil {
		targets = append(targets, wiki.Target(old))
	}
	return d.renderAffected(ctx, contract.AffectedInput{Targets: targets})
}

// pageDeleted takes the page out of the search index and re-renders the
// pages that link to it.
func (d Deps) pageDeleted(ctx context.Context, _ *resource.Service, old store.Doc) error {
	if d.Search != nil {
		if err := d.Search.Remove(ctx, search.TypeWikiPage, idOf(old)); err != nil {
			return err
		}
	}
	return d.renderAffected(ctx, contract.AffectedInput{Targets: []string{wiki.Target(old)}})
}

func idOf(doc store.Doc) string { id, _ := doc["_id"].(string); return id }
