package cms

import (
	"context"
	"fmt"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/cms/blocks"
	"platform/modules/cms/pages"
)

// Snippets declares /snippets: named, reusable lists of blocks that pages
// (and other snippets) include with a block of type snippet. Rights:
// cms.snippets.{view|create|edit|delete}.
func Snippets(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: pages.Snippets, Title: "snippet",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, Unique: true, MaxLen: 200, Filter: true, Sort: true, Description: "unique per customer"},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			blocks.Field(),
		},
		DefaultSort: []store.SortField{{Field: "name"}},
		Hooks: resource.Hooks{BeforeWrite: checkSnippet, AfterWrite: d.snippetWritten,
			BeforeDelete: refuseUsedSnippetDelete},
	}
}

// checkSnippet checks the blocks; a snippet cannot include itself,
// directly or through others.
func checkSnippet(ctx context.Context, w *resource.Write) error {
	errs, err := checkBlocks(ctx, w, idOf(w.New))
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

// snippetWritten re-renders the pages that include the snippet.
func (d Deps) snippetWritten(ctx context.Context, _ *resource.Service, saved, _ store.Doc) error {
	return d.renderUsers(ctx, idOf(saved))
}

// refuseUsedSnippetDelete keeps pages and snippets from losing a snippet
// they include.
func refuseUsedSnippetDelete(ctx context.Context, s *resource.Service, old store.Doc) error {
	id := idOf(old)
	users, err := pages.UsingSnippet(ctx, s.Store, id)
	if err != nil {
		return err
	}
	if len(users) > 0 {
		return resource.Conflict("_id", "%d web pages include this snippet (%s): remove it from them first", len(users), users[0])
	}
	n, err := s.Store.Collection(pages.Snippets).Count(ctx, query.AllOf(query.Eq("blocks.snippetId", id)))
	if err != nil || n == 0 {
		return err
	}
	return resource.Conflict("_id", "%s", fmt.Sprintf("%d other snippets include this snippet: remove it from them first", n))
}
