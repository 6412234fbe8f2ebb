package blocks

import "strings"

// messages are the few words the platform itself puts on a page, by
// language; a language missing here gets English.
var messages = map[string]map[string]string{
	"en": {
		"formUnavailable": "This form is not available yet.",
		"testimonials":    "What our customers say",
		"month":           "per month", "year": "per year", "once": "one-time",
		"notFound": "Page not found", "notFoundText": "The page you are looking for does not exist.",
		"home": "Go to the home page",
	},
	"de": {
		"formUnavailable": "Dieses Formular ist noch nicht verfügbar.",
		"testimonials":    "Was unsere Kunden sagen",
		"month":           "pro Monat", "year": "pro Jahr", "once": "einmalig",
		"notFound": "Seite nicht gefunden", "notFoundText": "Die gesuchte Seite gibt es nicht.",
		"home": "Zur Startseite",
	},
	"fr": {
		"formUnavailable": "Ce formulaire n’est pas encore disponible.",
		"testimonials":    "Ce que disent nos clients",
		"month":           "par mois", "year": "par an", "once": "paiement unique",
		"notFound": "Page introuvable", "notFoundText": "La page que vous cherchez n’existe pas.",
		"home": "Aller à l’accueil",
	},
}

// msg is the message key in the language of locale (de for de-CH).
func msg(locale, key string) string {
	lang, _, _ := strings.Cut(strings.ToLower(locale), "-")
	if m, ok := messages[lang]; ok {
		return m[key]
	}
	return messages["en"][key]
}
