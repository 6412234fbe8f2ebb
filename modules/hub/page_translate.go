package hub

import (
	"context"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/translate"
	"platform/modules/hub/wiki"
)

func translateBody() []resource.Field {
	return []resource.Field{{Name: "targetLocale", Type: resource.TString, Format: resource.FLocale, Required: true,
		Description: "the new page's locale, e.g. de or pt-BR; its slug is the page's slug followed by -<locale>"}}
}

// translatePage creates the page's translation into targetLocale: title
// and body through the translation provider (Markdown keeps its code,
// links and front matter keys), unpublished, under the same parent.
func (d Deps) translatePage(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	target := call.Body["targetLocale"].(string)
	if err := d.checkTranslation(ctx, call, target); err != nil {
		return nil, err
	}
	title, body, err := d.translated(ctx, call.Record, target)
	if err != nil {
		return nil, err
	}
	fields := store.Doc{"title": title, "body": body, "locale": target, "slug": translatedSlug(call.Record, target)}
	for _, k := range []string{"kbslug", "parentSlug", "contentFormat", "tags"} {
		if v, ok := call.Record[k]; ok {
			fields[k] = v
		}
	}
	page, err := call.Service.CreateWith(ctx, call.Resource, fields, store.Doc{"translationOf": call.ID})
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: page}, nil
}

func (d Deps) checkTranslation(ctx context.Context, call *resource.ActionCall, target string) error {
	if d.Translator == nil {
		return resource.Unavailable("no translation provider is configured (PLATFORM_TRANSLATE_URL, docs/hub.md)")
	}
	if strings.EqualFold(target, str(call.Record["locale"])) {
		return resource.InvalidField("targetLocale", "the page is in %s already", target)
	}
	docs, err := call.Service.Store.Collection(wiki.Pages).Find(ctx, store.FindOptions{Limit: 1, Fields: []string{"_id"},
		Filter: query.AllOf(query.Eq("translationOf", call.ID), query.Eq("locale", target))})
	if err != nil || len(docs) == 0 {
		return err
	}
	return resource.Conflict("targetLocale", "the page has a translation to %s already: %s", target, idOf(docs[0]))
}

// translated is the title and body in target.
func (d Deps) translated(ctx context.Context, page store.Doc, target string) (string, string, error) {
	source := str(page["locale"])
	titles, err := d.Translator.Translate(ctx, []string{str(page["title"])}, source, target, translate.FormatText)
	if err != nil {
		return "", "", translate.CallerError(err, "targetLocale")
	}
	body, err := d.translatedBody(ctx, page, source, target)
	if err != nil {
		return "", "", translate.CallerError(err, "targetLocale")
	}
	return titles[0], body, nil
}

func (d Deps) translatedBody(ctx context.Context, page store.Doc, source, target string) (string, error) {
	body := str(page["body"])
	if body == "" {
		return "", nil
	}
	if page["contentFormat"] == "html" {
		out, err := d.Translator.Translate(ctx, []string{body}, source, target, translate.FormatHTML)
		if err != nil {
			return "", err
		}
		return out[0], nil
	}
	return translate.Markdown(ctx, d.Translator, body, source, target)
}

func translatedSlug(page store.Doc, locale string) string {
	return str(page["slug"]) + "-" + strings.ToLower(locale)
}

func str(v any) string { s, _ := v.(string); return s }
