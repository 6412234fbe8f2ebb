package blocks

import (
	"html/template"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bojanz/currency"
)

// view is what a block's template gets: the block, its classes and what
// the platform made of it beforehand.
type view struct {
	Doc    map[string]any
	Class  string
	Locale string
	HTML   template.HTML // a text block's body
	Items  []answered    // an accordion's questions
	Inner  template.HTML // a snippet's blocks
	Frame  *frame        // an embed's player
}

// answered is an accordion item with its rendered answer.
type answered struct {
	Question string
	Answer   template.HTML
}

// frame is the player an embed block shows.
type frame struct{ Src, Title, Provider string }

// funcs read a block's fields for the templates: a missing or mistyped
// field reads as nothing, so a stored block of an older shape still renders.
var funcs = template.FuncMap{
	"text": text, "url": urlOf, "items": items, "strs": strs, "obj": obj,
	"msg": msg, "price": price,
}

func text(doc map[string]any, name string) string {
	s, _ := doc[name].(string)
	return s
}

func items(doc map[string]any, name string) []map[string]any {
	list, _ := doc[name].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func strs(doc map[string]any, name string) []string {
	list, _ := doc[name].([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

func obj(doc map[string]any, name string) map[string]any {
	m, _ := doc[name].(map[string]any)
	return m
}

// urlOf is the field's URL if it is safe, else "".
func urlOf(doc map[string]any, name string) string { return safeURL(text(doc, name)) }

// safeURL is s if it is http, https or relative, else "":
// the template then leaves the link or picture out. Control characters,
// spaces and backslashes, which browsers drop or read as slashes and so
// can turn "java\tscript:" into a scheme, make a URL unsafe too.
func safeURL(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return ""
		}
	case "":
	default:
		return ""
	}
	return s
}

// classes are a block's CSS classes: its type, then one per responsive
// setting (hide-mobile, align-tablet-center, space-desktop-large), which
// the site stylesheet implements at its breakpoints. Values outside the
// declared enums are left out, so a class is always one the platform
// names.
func classes(doc map[string]any) string {
	typ, _ := doc[tag].(string)
	out := []string{"block", "block-" + typ}
	settings := obj(doc, "responsiveSettings")
	for _, screen := range []string{"mobile", "tablet", "desktop"} {
		s := obj(settings, screen)
		if s["visible"] == false {
			out = append(out, "hide-"+screen)
		}
		if a := text(s, "alignment"); slices.Contains(alignments, a) {
			out = append(out, "align-"+screen+"-"+a)
		}
		if sp := text(s, "spacing"); slices.Contains(spacings, sp) {
			out = append(out, "space-"+screen+"-"+sp)
		}
	}
	return strings.Join(out, " ")
}

// amount is a plan's price as the template shows it.
type amount struct{ Amount, Period string }

// price formats a plan's price as the page's locale writes amounts of
// money (CLDR, by bojanz/currency: 29 € in German, €29 in English,
// CHF 1'234.50 in Swiss German): whole amounts without decimals, others
// with the currency's digits. x/text/currency puts the symbol first
// whatever the locale, hence the library.
func price(locale string, plan map[string]any) *amount {
	x, ok := numeric(plan["price"])
	code := text(plan, "currency")
	if !ok || !currency.IsValid(code) || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	a, err := currency.NewAmount(strconv.FormatFloat(x, 'f', -1, 64), code)
	if err != nil {
		return nil
	}
	f := currency.NewFormatter(currency.NewLocale(pageLocale(locale)))
	if x == math.Trunc(x) {
		f.MinDigits = 0
	}
	return &amount{Amount: f.Format(a), Period: msg(locale, text(plan, "period"))}
}

var localeTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

// pageLocale is the locale for the lang attribute; "en" when it is not a
// language tag.
func pageLocale(locale string) string {
	if localeTag.MatchString(locale) {
		return locale
	}
	return "en"
}
