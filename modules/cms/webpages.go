package cms

import (
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/cms/blocks"
	"platform/modules/cms/pages"
)

// WebPages declares /webpages. A page's html, table of contents and
// render state are written by the render workflow only. Rights:
// cms.webpages.{view|create|edit|delete}, cms.webpages.publish for
// publish and unpublish; duplicate and translate create a page (create
// right), generate-blocks changes one (edit right).
func WebPages(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: pages.Pages, Title: "web page", Key: "slug",
		Fields:      append(pageFields(), renderedFields()...),
		DefaultSort: []store.SortField{{Field: "locale"}, {Field: "slug"}},
		Events:      []string{pages.EventRendered},
		Actions:     pageActions(d),
		Hooks:       resource.Hooks{BeforeWrite: d.checkPage, AfterWrite: d.pageWritten, AfterDelete: d.pageDeleted},
	}
}

func pageFields() []resource.Field {
	return []resource.Field{
		{Name: "slug", Type: resource.TString, Required: true, UniqueWithin: "locale", MaxLen: 200, Filter: true, Sort: true,
			Description: "the URL path without locale, unique per locale: segments of lower-case letters and digits joined by hyphens, " +
				"separated by slashes (products/red-shoes); the page is at /site/<locale>/<slug>"},
		{Name: "locale", Type: resource.TString, Format: resource.FLocale, Default: "en", Filter: true, Sort: true, Description: "e.g. de, en"},
		{Name: "title", Type: resource.TString, Required: true, MaxLen: 300, Filter: true, Sort: true, Description: "SEO title"},
		{Name: "description", Type: resource.TString, MaxLen: 1000, Description: "meta description"},
		blocks.Field(),
		{Name: "published", Type: resource.TBool, ReadOnly: true, Default: false, Filter: true, Sort: true,
			Description: "set by the publish and unpublish actions; only published pages are served"},
		{Name: "publishedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true, Description: "when the page was last published"},
		{Name: "customDomain", Type: resource.TString, MaxLen: 253, Filter: true,
			Description: "optional own domain (a lower-case host name such as www.example.com), unique across customers: a request " +
				"with this Host is answered with this page at /, and with the customer's other published pages at /site/<locale>/<slug>"},
		{Name: "translationOf", Type: resource.TObjectID, ReadOnly: true, Filter: true, Description: "the page this one was translated from"},
		{Name: "duplicateOf", Type: resource.TObjectID, ReadOnly: true, Filter: true, Description: "the page this one was duplicated from"},
	}
}

// renderedFields are what the render workflow writes.
func renderedFields() []resource.Field {
	str := func(n int) *resource.Field { return &resource.Field{Type: resource.TString, MaxLen: n} }
	return []resource.Field{
		{Name: "html", Type: resource.TString, ReadOnly: true, NotInEvents: true, MaxLen: pages.MaxHTML,
			Description: "the rendered, sanitised HTML document (left out of the page's events: read the page or its public address)"},
		{Name: "toc", Type: resource.TArray, ReadOnly: true, Description: "table of contents: the headings of the page's text in order",
			Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{
				{Name: "level", Type: resource.TInteger}, {Name: "id", Type: resource.TString}, {Name: "text", Type: resource.TString}}}},
		{Name: "glossaryTerms", Type: resource.TArray, ReadOnly: true, Items: str(200), Filter: true, Description: "ids of the glossary entries linked"},
		{Name: "links", Type: resource.TArray, ReadOnly: true, Items: str(201), Filter: true, Description: "the wiki:<kb>/<slug> targets the page links to"},
		{Name: "brokenLinks", Type: resource.TArray, ReadOnly: true, Items: str(201), Filter: true,
			Description: "wiki:<kb>/<slug> targets of links to no page (kept as plain text)"},
		{Name: "missingSnippets", Type: resource.TArray, ReadOnly: true, Items: str(24), Filter: true,
			Description: "snippets the page uses that could not be included (deleted meanwhile)"},
		{Name: "snippetIds", Type: resource.TArray, ReadOnly: true, Items: str(24), Filter: true,
			Description: "every snippet the page's last render included, also through other snippets"},
		{Name: "renderHash", Type: resource.TString, ReadOnly: true, Description: "hash of the render's inputs: a render with the same inputs changes nothing (the ETag of the public page)"},
		{Name: "renderedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true},
		{Name: "renderError", Type: resource.TString, ReadOnly: true, Filter: true,
			Description: "why the last render failed (html keeps the last good render); absent after a good one"},
	}
}
