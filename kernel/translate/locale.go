package translate

import (
	"fmt"
	"regexp"
	"strings"
)

// bcp47 is the part of BCP 47 a translation locale uses: a language, an
// optional script and an optional region ("de", "pt-BR", "zh-Hant-TW",
// "es-419"). Variants and extensions name nothing a provider translates
// differently, so they are refused rather than silently dropped.
var bcp47 = regexp.MustCompile(`^([A-Za-z]{2,3})(?:[-_]([A-Za-z]{4}))?(?:[-_]([A-Za-z]{2}|[0-9]{3}))?$`)

type locale struct{ lang, script, region string }

func parseLocale(tag string) (locale, error) {
	m := bcp47.FindStringSubmatch(tag)
	if m == nil {
		return locale{}, fmt.Errorf("%w: %q is no BCP 47 tag like \"de\" or \"pt-BR\"", ErrLocale, tag)
	}
	return locale{strings.ToUpper(m[1]), strings.ToUpper(m[2]), strings.ToUpper(m[3])}, nil
}

// britishRegions write British English; every other region, and none,
// gets American English, CLDR's default for "en".
var britishRegions = map[string]bool{"GB": true, "IE": true, "AU": true, "NZ": true, "ZA": true, "IN": true}

// traditionalRegions write Chinese in traditional characters.
var traditionalRegions = map[string]bool{"TW": true, "HK": true, "MO": true}

// DeepLTarget is DeepL's target_lang for a BCP 47 tag. DeepL deprecates
// the bare EN and PT targets, so a variant is always chosen:
//
//	en, en-US, en-<other>            EN-US
//	en-GB, -IE, -AU, -NZ, -ZA, -IN   EN-GB
//	pt, pt-BR                        PT-BR (CLDR's default for "pt")
//	pt-<other> (PT, AO, MZ, ...)     PT-PT
//	zh, zh-Hans, zh-CN, zh-SG        ZH-HANS
//	zh-Hant, zh-TW, -HK, -MO         ZH-HANT
//	es-419                           ES-419 (Latin American Spanish)
//	anything else                    the language, upper case ("de-AT" -> DE)
func DeepLTarget(tag string) (string, error) {
	l, err := parseLocale(tag)
	if err != nil {
		return "", err
	}
	switch l.lang {
	case "EN":
		return "EN-" + pick(britishRegions[l.region], "GB", "US"), nil
	case "PT":
		return "PT-" + pick(l.region == "" || l.region == "BR", "BR", "PT"), nil
	case "ZH":
		trad := l.script == "HANT" || (l.script == "" && traditionalRegions[l.region])
		return "ZH-" + pick(trad, "HANT", "HANS"), nil
	case "ES":
		return "ES" + pick(l.region == "419", "-419", ""), nil
	}
	return l.lang, nil
}

// DeepLSource is DeepL's source_lang for a BCP 47 tag: the language
// alone, as DeepL's source languages have no variants; "" stays "" (detect).
func DeepLSource(tag string) (string, error) {
	if tag == "" {
		return "", nil
	}
	l, err := parseLocale(tag)
	return l.lang, err
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
