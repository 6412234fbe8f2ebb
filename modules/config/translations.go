package config

import (
	"context"
	"fmt"
	"regexp"

	"golang.org/x/text/language"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Bounds of a translation's parts.
const (
	MaxTranslationKey    = 200
	MaxTranslationValue  = 10000
	MaxTranslationModule = 64
	MaxLocaleTag         = 35 // RFC 5646 §4.4.1: room for any tag worth keeping
)

var (
	// translationKey is dot notation: segments of letters, digits, _ and
	// -, joined by single dots (crm.consumers.title).
	translationKey = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
	// moduleSlug names the module a translation belongs to (crm, cms, my-app).
	moduleSlug = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
)

// Translations declares /translations: one text per key, locale and
// module, which is the natural key (unique per customer; a second record
// with the same three is a 409). Bulk import and export live beside it
// (translations_io.go).
func Translations() *resource.Resource {
	return &resource.Resource{
		Plural: "translations", Title: "translation", Export: true,
		Fields: []resource.Field{
			{Name: "key", Type: resource.TString, Required: true, MaxLen: MaxTranslationKey, Filter: true, Sort: true,
				Description: "dot notation: segments of letters, digits, _ and - joined by dots, such as crm.consumers.title"},
			{Name: "locale", Type: resource.TString, Required: true, MaxLen: MaxLocaleTag, Filter: true, Sort: true,
				Description: "a BCP 47 language tag, stored in its canonical form (en-us becomes en-US, iw becomes he)"},
			{Name: "value", Type: resource.TString, Required: true, MaxLen: MaxTranslationValue, Description: "the translated text"},
			{Name: "module", Type: resource.TString, Required: true, MaxLen: MaxTranslationModule, Filter: true, Sort: true,
				Description: "the scope of the key: lowercase letters and digits, words joined by hyphens (crm, cms, my-app)"},
		},
		Indexes: []store.Index{{Name: "uniq_module_locale_key", Unique: true,
			Keys: []store.SortField{{Field: "module"}, {Field: "locale"}, {Field: "key"}}}},
		Hooks: resource.Hooks{BeforeWrite: translationBeforeWrite},
	}
}

// translationBeforeWrite checks the key and module, canonicalises the
// locale and answers a clash of the natural key as a 409 naming the
// record that holds it (the unique index stays the guard against races).
func translationBeforeWrite(ctx context.Context, w *resource.Write) error {
	row := translationRow{key: str(w.New["key"]), locale: str(w.New["locale"]), module: str(w.New["module"])}
	if errs := row.check(""); len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	w.New["locale"] = row.locale
	if ctx.Value(keysChecked{}) != nil {
		return nil // an import read every key it writes up front
	}
	id, _ := w.New["_id"].(string)
	return naturalKeyFree(ctx, w.Service.Store, row, id)
}

// keysChecked marks the context of an import, which looked up all its
// natural keys in one query: one more query per row would make a large
// import slow on stores without pushed-down filters. The unique index
// still refuses a key another writer took meanwhile.
type keysChecked struct{}

// naturalKeyFree is a 409 when another translation has row's key.
func naturalKeyFree(ctx context.Context, st store.Store, row translationRow, id string) error {
	docs, err := st.Collection("translations").Find(ctx, store.FindOptions{Filter: row.where(), Limit: 1, Fields: []string{"_id"}})
	if err != nil {
		return resource.Unavailable("the store is unavailable").WithCause(err)
	}
	if len(docs) == 1 && docs[0]["_id"] != id {
		return &resource.Error{Kind: resource.KindConflict, Entries: []resource.ErrorEntry{resource.FieldError(resource.CodeDuplicate, "key",
			"translation %s already has key %q for locale %s in module %s", docs[0]["_id"], row.key, row.locale, row.module)}}
	}
	return nil
}

// translationRow is a translation's natural key and value.
type translationRow struct{ key, locale, module, value string }

// where matches the translation with row's natural key.
func (t translationRow) where() query.Expr {
	return query.AllOf(query.Eq("module", t.module), query.Eq("locale", t.locale), query.Eq("key", t.key))
}

func (t translationRow) naturalKey() string { return t.module + "\x00" + t.locale + "\x00" + t.key }

// check validates the key, module and locale (canonicalising the locale
// in place); prefix names the row in error fields (rows[3].).
func (t *translationRow) check(prefix string) []resource.ErrorEntry {
	var errs []resource.ErrorEntry
	if len(t.key) > MaxTranslationKey || !translationKey.MatchString(t.key) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, prefix+"key",
			"key must be dot notation of at most %d characters: letters, digits, _ and - in segments joined by single dots, such as crm.consumers.title", MaxTranslationKey))
	}
	if len(t.module) > MaxTranslationModule || !moduleSlug.MatchString(t.module) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, prefix+"module",
			"module must be lowercase letters and digits, words joined by hyphens, such as crm or my-app"))
	}
	if tag, msg := CanonicalLocale(t.locale); msg != "" {
		errs = append(errs, resource.FieldError(resource.CodeFormat, prefix+"locale", "%s", msg))
	} else {
		t.locale = tag
	}
	return errs
}

// CanonicalLocale parses a BCP 47 language tag and answers its canonical
// form, or why it is refused: not well-formed, an unknown subtag, or no
// language at all (und, private use only).
func CanonicalLocale(s string) (string, string) {
	if s == "" || len(s) > MaxLocaleTag {
		return "", fmt.Sprintf("locale must be a BCP 47 language tag of at most %d characters, such as en, de-CH or zh-Hant-TW", MaxLocaleTag)
	}
	tag, err := language.Parse(s)
	if err != nil {
		return "", fmt.Sprintf("locale %q is not a valid BCP 47 language tag (%v); use a tag such as en, de-CH or zh-Hant-TW", s, err)
	}
	if _, conf := tag.Base(); conf != language.Exact || tag == language.Und {
		return "", fmt.Sprintf("locale %q names no language; use a tag such as en, de-CH or zh-Hant-TW", s)
	}
	out := tag.String()
	if len(out) > MaxLocaleTag {
		return "", fmt.Sprintf("locale must be a BCP 47 language tag of at most %d characters", MaxLocaleTag)
	}
	return out, ""
}
