package render

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// word is one word of a text: its byte span and its folded form.
type word struct {
	start, end int
	key        string
}

// isWordRune: letters, digits and combining marks make words, in any script,
// so "Überblick" is one word whether its Ü is composed or not.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// words splits s into its words.
func words(s string) []word {
	ws := make([]word, 0, len(s)/6)
	start := -1
	for i, r := range s {
		switch in := isWordRune(r); {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			ws = append(ws, word{start, i, fold(s[start:i])})
			start = -1
		}
	}
	if start >= 0 {
		ws = append(ws, word{start, len(s), fold(s[start:])})
	}
	return ws
}

// fold is the form words are compared in: composed, lower case.
func fold(w string) string {
	if isASCII(w) {
		return strings.ToLower(w)
	}
	return strings.ToLower(norm.NFC.String(w))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// keyOf joins folded words into a term key.
func keyOf(ws []word) string {
	if len(ws) == 1 {
		return ws[0].key
	}
	keys := make([]string, len(ws))
	for i, w := range ws {
		keys[i] = w.key
	}
	return strings.Join(keys, " ")
}

// joined tells whether the words of s from ws[0] to the last one are
// separated by spaces or hyphens only: "service-level agreement" is a
// term's words, "service, level agreement" is not.
func joined(s string, ws []word) bool {
	for i := 1; i < len(ws); i++ {
		gap := s[ws[i-1].end:ws[i].start]
		if strings.Trim(gap, " \t\r\n\u00a0-") != "" {
			return false
		}
	}
	return true
}
