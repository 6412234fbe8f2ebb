package search

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// plan is a query as the index runs it.
type plan struct {
	words  []string // distinct folded terms, in order
	prefix bool     // the last word also matches as a prefix
	limit  int
	types  uint8 // bit per type code
	kb     string
	unpub  bool
}

// parse validates and bounds q. A query of only punctuation has no words
// and finds nothing; a blank one is the caller's error.
func parse(q Query) (plan, error) {
	text := strings.TrimSpace(q.Q)
	if text == "" {
		return plan{}, ErrEmptyQuery
	}
	text = cutRunes(q.Q, MaxQueryChars)
	p := plan{limit: q.Limit, kb: q.KB, unpub: q.Unpublished}
	if p.limit <= 0 {
		p.limit = DefaultLimit
	}
	p.limit = min(p.limit, MaxLimit)
	for _, t := range q.Types {
		if c, ok := typeCode(t); ok {
			p.types |= 1 << c
		}
	}
	p.words = distinct(tokens(text), MaxQueryTerms)
	// "kuber" is being typed; "kuber " is a word the user finished.
	last, _ := utf8.DecodeLastRuneInString(text)
	p.prefix = len(p.words) > 0 && isWordRune(last)
	return p, nil
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// distinct drops repeated words (keeping the later place, so the last word
// typed stays the prefix) and keeps at most n: the first n-1 and the last.
func distinct(words []string, n int) []string {
	var out []string
	for i, w := range words {
		if i < len(words)-1 && slices.Contains(words[i+1:], w) {
			continue
		}
		out = append(out, w)
	}
	if len(out) > n {
		out = append(out[:n-1], out[len(out)-1])
	}
	return out
}
