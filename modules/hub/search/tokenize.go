package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// maxToken bounds a token's bytes: longer runs are hashes or encoded data,
// never searched for, and would only grow the vocabulary.
const maxToken = 64

// scan calls fn with the byte span and folded form of each token of s: a
// run of letters and digits (combining marks stay inside, so text in NFD
// form is not split at its accents).
func scan(s string, fn func(start, end int, tok string)) {
	start, ascii := -1, true
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case isWordRune(r):
			if start < 0 {
				start, ascii = i, true
			}
			ascii = ascii && n == 1
		case start >= 0:
			emit(s, start, i, ascii, fn)
			start = -1
		}
		i += n
	}
	if start >= 0 {
		emit(s, start, len(s), ascii, fn)
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func emit(s string, start, end int, ascii bool, fn func(start, end int, tok string)) {
	tok := fold(s[start:end], ascii)
	if tok != "" && len(tok) <= maxToken {
		fn(start, end, tok)
	}
}

// fold lowercases a token and strips its diacritics, so "Résumé" and
// "resume" are one term. ASCII, most of the text, skips the normalizer.
func fold(w string, ascii bool) string {
	if ascii {
		return strings.ToLower(w)
	}
	// A chain holds state: one per call, as tokens are folded concurrently.
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	s, _, err := transform.String(t, w)
	if err != nil {
		s = w
	}
	return strings.ToLower(s)
}

// tokens returns the folded tokens of s in order.
func tokens(s string) []string {
	var out []string
	scan(s, func(_, _ int, tok string) { out = append(out, tok) })
	return out
}

// freqs counts the tokens of s and returns them with the token count.
func freqs(s string) (map[string]int, int) {
	m := map[string]int{}
	n := 0
	scan(s, func(_, _ int, tok string) {
		m[tok]++
		n++
	})
	return m, n
}
