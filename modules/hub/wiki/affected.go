package wiki

import (
	"context"
	"strings"
	"unicode"

	"platform/kernel/query"
	"platform/kernel/store"
)

// maxAffected bounds the pages one change re-renders.
const maxAffected = 10_000

// Finder finds the pages of the customer whose text holds all the words
// (search.Index).
type Finder interface {
	Candidates(ctx context.Context, words []string) ([]string, error)
}

// Affected lists the pages a change concerns: those linking to one of
// targets ("<kb>/<slug>") and those whose text mentions one of words (a
// glossary term or alias, old or new).
func Affected(ctx context.Context, s store.Store, f Finder, words, targets []string) ([]string, error) {
	ids := map[string]bool{}
	if len(targets) > 0 {
		docs, err := s.Collection(Pages).Find(ctx, store.FindOptions{Limit: maxAffected, Fields: []string{"_id"},
			Filter: query.Field{Path: "links", Conds: []query.Cond{query.In{Values: store.List(targets)}}}})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			ids[str(d["_id"])] = true
		}
	}
	for _, w := range words {
		found, err := f.Candidates(ctx, wordsOf(w))
		if err != nil {
			return nil, err
		}
		for _, id := range found {
			ids[id] = true
		}
	}
	return keys(ids), nil
}

// wordsOf splits a term into the words the index holds.
func wordsOf(term string) []string {
	return strings.FieldsFunc(term, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func keys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	return out
}
