package hub

import (
	"context"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/search"
	"platform/modules/hub/wiki"
)

// FAQs declares /faqs. Rights: hub.faqs.{view|create|edit|delete}. Each
// write updates the search index.
func FAQs(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: wiki.FAQs, Title: "FAQ", Key: "slug",
		Fields: []resource.Field{
			{Name: "slug", Type: resource.TString, Required: true, Unique: true, MaxLen: 100, Filter: true, Sort: true,
				Description: "unique per customer: lower-case letters and digits joined by hyphens"},
			{Name: "question", Type: resource.TString, Required: true, MaxLen: 500, Filter: true, Sort: true},
			{Name: "answer", Type: resource.TString, Required: true, Format: resource.FMarkdown, MaxLen: 20000, Description: "Markdown"},
			{Name: "category", Type: resource.TString, MaxLen: 100, Filter: true, Sort: true},
		},
		DefaultSort: []store.SortField{{Field: "category"}, {Field: "question"}},
		Hooks: resource.Hooks{BeforeWrite: checkSlug, AfterWrite: d.indexFAQ,
			AfterDelete: d.unindex(search.TypeFAQ)},
	}
}

func checkSlug(_ context.Context, w *resource.Write) error {
	if slug, _ := w.New["slug"].(string); !slugPattern.MatchString(slug) {
		return resource.InvalidField("slug", "a slug is lower-case letters and digits joined by single hyphens, such as reset-password")
	}
	return nil
}

func (d Deps) indexFAQ(ctx context.Context, _ *resource.Service, saved, _ store.Doc) error {
	if d.Search == nil {
		return nil
	}
	return d.Search.Put(ctx, search.Doc{Type: search.TypeFAQ, ID: idOf(saved), Title: str(saved["question"]),
		Text: wiki.MarkdownText(str(saved["answer"])), Published: true})
}

// unindex takes a deleted record out of the search index.
func (d Deps) unindex(typ string) func(context.Context, *resource.Service, store.Doc) error {
	return func(ctx context.Context, _ *resource.Service, old store.Doc) error {
		if d.Search == nil {
			return nil
		}
		return d.Search.Remove(ctx, typ, idOf(old))
	}
}
