package render

import "sort"

// Matching returns the glossary entries a term or alias of which occurs in
// body as whole words, case-insensitive, sorted by ID. It scans the raw
// text (also with character references decoded), not the rendered page, so
// it is cheap and may count a mention that Render does not link (in code,
// a link or a heading, or after the first in a section); it never misses
// an entry Render links.
func Matching(body string, glossary []Term) []Term {
	x := newIndex(glossary)
	if len(x.entries) == 0 {
		return nil
	}
	found := map[string]Term{}
	for _, s := range readings(body, "") {
		x.each(s, func(t *Term) { found[t.ID] = *t })
	}
	out := make([]Term, 0, len(found))
	for _, t := range found {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
