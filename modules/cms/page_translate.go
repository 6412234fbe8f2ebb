package cms

import (
	"context"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/translate"
	"platform/modules/cms/blocks"
	"platform/modules/cms/pages"
)

func translateBody() []resource.Field {
	return []resource.Field{{Name: "targetLocale", Type: resource.TString, Format: resource.FLocale, Required: true,
		Description: "the new page's locale, e.g. de or pt-BR; it keeps the page's slug"}}
}

// translatePage creates the page's translation into targetLocale: title,
// description and every text of every block through the translation
// provider (Markdown keeps its code and links), unpublished. Snippets are
// shared, not copied: a snippet block stays as it is.
func (d Deps) translatePage(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	target := call.Body["targetLocale"].(string)
	if err := d.checkTranslation(ctx, call, target); err != nil {
		return nil, err
	}
	body, err := d.translated(ctx, call.Record, target)
	if resource.KindOf(err) == resource.KindInvalid {
		return nil, err
	}
	if err != nil {
		return nil, translate.CallerError(err, "targetLocale")
	}
	page, err := call.Service.CreateWith(ctx, call.Resource, body, store.Doc{"translationOf": call.ID})
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: page}, nil
}

func (d Deps) checkTranslation(ctx context.Context, call *resource.ActionCall, target string) error {
	if d.Translator == nil {
		return resource.Unavailable("no translation provider is configured (PLATFORM_TRANSLATE_URL, docs/cms.md)")
	}
	if strings.EqualFold(target, str(call.Record["locale"])) {
		return resource.InvalidField("targetLocale", "the page is in %s already", target)
	}
	docs, err := call.Service.Store.Collection(pages.Pages).Find(ctx, store.FindOptions{Limit: 1, Fields: []string{"_id"},
		Filter: query.AllOf(query.Eq("slug", call.Record["slug"]), query.Eq("locale", target))})
	if err != nil || len(docs) == 0 {
		return err
	}
	return resource.Conflict("targetLocale", "a page %s exists in %s already: %s", str(call.Record["slug"]), target, idOf(docs[0]))
}

// translated is the body of the new page: the page's client fields with
// every text in target.
func (d Deps) translated(ctx context.Context, page store.Doc, target string) (map[string]any, error) {
	source := str(page["locale"])
	list, _ := page["blocks"].([]any)
	texts := append(pageTexts(page), blocks.Texts(list)...)
	if n := markdownTexts(texts); n > maxMarkdownTexts {
		return nil, resource.InvalidField("blocks", "the page has %d Markdown texts, each one request to the provider: "+
			"at most %d are translated in one call; split the page", n, maxMarkdownTexts)
	}
	if err := d.translateTexts(ctx, texts, source, target); err != nil {
		return nil, err
	}
	body := clientFields(page)
	delete(body, "customDomain")
	body["locale"], body["title"] = target, texts[0].Value
	if _, ok := page["description"]; ok {
		body["description"] = texts[1].Value
	}
	body["blocks"] = asClientJSON(blocks.SetTexts(list, texts[2:]))
	return body, nil
}

// maxMarkdownTexts bounds the provider requests of one translation: each
// Markdown text is translated as a document of its own (its structure is
// kept), while plain texts go in batches.
const maxMarkdownTexts = 300

func markdownTexts(texts []blocks.Text) int {
	n := 0
	for _, t := range texts {
		if t.Markdown && strings.TrimSpace(t.Value) != "" {
			n++
		}
	}
	return n
}

// pageTexts are the title and description as the first two texts.
func pageTexts(page store.Doc) []blocks.Text {
	return []blocks.Text{{Path: "title", Value: str(page["title"])}, {Path: "description", Value: str(page["description"])}}
}

// translateTexts translates the plain texts in one call and each Markdown
// text as a document (its code, links and markup are not sent).
func (d Deps) translateTexts(ctx context.Context, texts []blocks.Text, source, target string) error {
	var plain []string
	var at []int
	for i := range texts {
		switch {
		case strings.TrimSpace(texts[i].Value) == "":
		case texts[i].Markdown:
			out, err := translate.Markdown(ctx, d.Translator, texts[i].Value, source, target)
			if err != nil {
				return err
			}
			texts[i].Value = out
		default:
			plain, at = append(plain, texts[i].Value), append(at, i)
		}
	}
	if len(plain) == 0 {
		return nil
	}
	out, err := d.Translator.Translate(ctx, plain, source, target, translate.FormatText)
	for j, i := range at {
		if err == nil {
			texts[i].Value = out[j]
		}
	}
	return err
}
