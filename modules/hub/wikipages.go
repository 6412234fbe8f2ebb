package hub

import (
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/wiki"
)

// WikiPages declares /wikipages. A page's bodyHtml, table of contents,
// links and render state are written by the render workflow only.
// Rights: hub.wikipages.{view|create|edit|delete}, hub.wikipages.publish
// for publish and unpublish; translate creates a page (create right).
func WikiPages(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: wiki.Pages, Title: "wiki page", Key: "slug",
		Fields:      append(pageFields(), renderedFields()...),
		DefaultSort: []store.SortField{{Field: "kbslug"}, {Field: "parentSlug"}, {Field: "order"}},
		Events:      []string{wiki.EventRendered},
		Actions:     pageActions(d),
		Hooks: resource.Hooks{Prepare: applyFrontMatter, BeforeWrite: checkPage, AfterWrite: d.pageWritten,
			BeforeDelete: refuseParentDelete, AfterDelete: d.pageDeleted},
	}
}

func pageFields() []resource.Field {
	str := func(n int) *resource.Field { return &resource.Field{Type: resource.TString, MaxLen: n} }
	return []resource.Field{
		{Name: "kbslug", Type: resource.TString, Required: true, SuppliedBy: "body", MaxLen: 100, Filter: true, Sort: true,
			Description: "slug of a knowledge base of the customer; may come from the body's front matter (GET /wikipages?kbslug=)"},
		{Name: "slug", Type: resource.TString, Required: true, SuppliedBy: "body", UniqueWithin: "kbslug", MaxLen: 100, Filter: true, Sort: true,
			Description: "unique per knowledge base: lower-case letters and digits joined by hyphens; may come from the front matter"},
		{Name: "parentSlug", Type: resource.TString, MaxLen: 100, Filter: true, Sort: true,
			Description: "slug of the parent page in the same knowledge base; no cycles; may come from the front matter"},
		{Name: "order", Type: resource.TInteger, Filter: true, Sort: true,
			Description: "sort within the parent, a multiple of 10; new pages go last; the move action renumbers the siblings"},
		{Name: "title", Type: resource.TString, Required: true, SuppliedBy: "body", MaxLen: 300, Filter: true, Sort: true, Description: "may come from the front matter"},
		{Name: "locale", Type: resource.TString, Format: resource.FLocale, Default: "en", Filter: true, Sort: true},
		{Name: "contentFormat", Type: resource.TString, Enum: []string{"markdown", "html"}, Default: "markdown", Filter: true},
		{Name: "body", Type: resource.TString, MaxLen: wiki.MaxBody,
			Description: "raw content, optionally opening with YAML front matter (docs/hub.md); rendered to bodyHtml by a workflow"},
		{Name: "tags", Type: resource.TArray, Items: str(64), Filter: true, Description: "at most 50; may come from the front matter"},
		{Name: "published", Type: resource.TBool, ReadOnly: true, Default: false, Filter: true, Sort: true,
			Description: "set by the publish and unpublish actions"},
		{Name: "publishedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true, Description: "when the page was last published"},
		{Name: "translationOf", Type: resource.TObjectID, ReadOnly: true, Filter: true, Description: "the page this one was translated from"},
	}
}

// renderedFields are what the render workflow writes.
func renderedFields() []resource.Field {
	str := func(n int) *resource.Field { return &resource.Field{Type: resource.TString, MaxLen: n} }
	return []resource.Field{
		{Name: "bodyHtml", Type: resource.TString, ReadOnly: true, NotInEvents: true, MaxLen: wiki.MaxHTML,
			Description: "the rendered, sanitised body (left out of the page's events: read the page)"},
		{Name: "toc", Type: resource.TArray, ReadOnly: true, Description: "table of contents: the headings in order",
			Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{
				{Name: "level", Type: resource.TInteger}, {Name: "id", Type: resource.TString}, {Name: "text", Type: resource.TString}}}},
		{Name: "links", Type: resource.TArray, ReadOnly: true, Items: str(201), Filter: true, Description: "the wiki:<kb>/<slug> targets the body links to"},
		{Name: "brokenLinks", Type: resource.TArray, ReadOnly: true, Items: str(201), Filter: true,
			Description: "the targets of links to no page (kept as plain text in bodyHtml)"},
		{Name: "glossaryTerms", Type: resource.TArray, ReadOnly: true, Items: str(200), Filter: true, Description: "glossary terms linked in bodyHtml"},
		{Name: "renderHash", Type: resource.TString, ReadOnly: true, Description: "hash of the render's inputs: a render with the same inputs changes nothing"},
		{Name: "renderedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true},
		{Name: "renderError", Type: resource.TString, ReadOnly: true, Filter: true,
			Description: "why the last render failed (bodyHtml keeps the last good render); absent after a good one"},
		{Name: "searchHash", Type: resource.TString, ReadOnly: true, Description: "hash of what the search index holds of the page"},
	}
}
