package config

import (
	"context"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Locales declares /locales: the languages a customer offers, addressed by
// their BCP 47 tag as well as by id (/locales/de-CH). The tag is stored in
// its canonical form, so de-ch and de-CH are one locale. At most one
// locale is the default: marking one moves the mark from the other.
func Locales() *resource.Resource {
	return &resource.Resource{
		Plural: "locales", Title: "locale", Key: "tag",
		Fields: []resource.Field{
			{Name: "tag", Type: resource.TString, Required: true, MaxLen: MaxLocaleTag, Unique: true, Filter: true, Sort: true,
				Description: "a BCP 47 language tag (en, de-CH, zh-Hant-TW), stored canonical: en-us becomes en-US, iw becomes he; unique per customer"},
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 100, Filter: true, Sort: true, Description: "display name, such as Deutsch (Schweiz)"},
			{Name: "default", Type: resource.TBool, Default: false, Filter: true,
				Description: "the customer's default locale; at most one: setting it on a locale clears it on the one that had it"},
		},
		Hooks: resource.Hooks{BeforeWrite: localeBeforeWrite, AfterWrite: onlyDefault("locales")},
	}
}

func localeBeforeWrite(_ context.Context, w *resource.Write) error {
	tag, msg := CanonicalLocale(str(w.New["tag"]))
	if msg != "" {
		return resource.Invalid(resource.FieldError(resource.CodeFormat, "tag", "%s", msg))
	}
	w.New["tag"] = tag
	return nil
}

// onlyDefault keeps "default: true" on one record of plural at most: the
// record just saved with it takes the mark from every other. Two writers
// racing may leave none marked, never two.
func onlyDefault(plural string) func(context.Context, *resource.Service, store.Doc, store.Doc) error {
	return func(ctx context.Context, s *resource.Service, saved, _ store.Doc) error {
		if saved["default"] != true {
			return nil
		}
		r := s.Registry.Get("config", plural)
		where := query.AllOf(query.Eq("default", true),
			query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: saved["_id"]}}})
		_, err := s.ApplyAll(ctx, r, where, resource.Change{Set: store.Doc{"default": false}})
		return err
	}
}
