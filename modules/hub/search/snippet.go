package search

import (
	"context"
	"errors"
	"html"
	"sort"
	"strings"
	"unicode/utf8"

	"platform/kernel/store"
	"platform/kernel/tenant"
)

const (
	fragLen  = 160 // bytes of text around the matches shown
	maxFrags = 2
	// snippetScan bounds the bytes of a text searched for matches, and
	// maxSpans the matches kept: a 200 KB text of a common word would
	// otherwise cost more than the search.
	snippetScan = 64 << 10
	maxSpans    = 2000
)

// snippets fills the hits' snippets: from texts the shard held
// (TextsInMemory) or read from the store for these hits alone, never for
// every match.
func (x *Index) snippets(ctx context.Context, hits []Hit, held []string, p plan) error {
	texts := held
	if !x.memTexts {
		var err error
		if texts, err = x.texts(ctx, hits); err != nil {
			return err
		}
	}
	m := newMatcher(p)
	for i := range hits {
		hits[i].Snippets = m.snippets(texts[i])
	}
	return nil
}

// texts reads the hits' texts, a Get each: the embedded store answers a
// Get from its primary key but a Find on _id by reading the customer's
// documents (8 ms at 10,000 of them), and a MongoDB server answers either
// from its _id index. A text gone meanwhile (a Remove racing) is "".
func (x *Index) texts(ctx context.Context, hits []Hit) ([]string, error) {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		d, err := x.docs().Get(ctx, docKey(customer, h.Type, h.ID), fText)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		out[i] = str(d[fText])
	}
	return out, nil
}

// matcher finds the query's words in a text as the index would.
type matcher struct {
	words  map[string]int
	prefix string // the last word, when it also matches as a prefix
	n      int
}

func newMatcher(p plan) matcher {
	m := matcher{words: map[string]int{}, n: len(p.words)}
	for i, w := range p.words {
		m.words[w] = i
	}
	if p.prefix {
		m.prefix = p.words[len(p.words)-1]
	}
	return m
}

func (m matcher) word(tok string) (int, bool) {
	if i, ok := m.words[tok]; ok {
		return i, true
	}
	if m.prefix != "" && strings.HasPrefix(tok, m.prefix) {
		return m.n - 1, true
	}
	return 0, false
}

// span is one match in a text: its bytes and the query word it matched.
type span struct{ start, end, word int }

func (m matcher) find(text string) []span {
	var out []span
	scan(cut(text, snippetScan), func(start, end int, tok string) {
		if w, ok := m.word(tok); ok && len(out) < maxSpans {
			out = append(out, span{start, end, w})
		}
	})
	return out
}

// snippets returns up to maxFrags fragments of text around its best
// matches, in text order; a text without matches (the title matched)
// shows its start.
func (m matcher) snippets(text string) []string {
	if text == "" {
		return []string{}
	}
	spans := m.find(text)
	if len(spans) == 0 {
		return []string{render(text, 0, 0, nil)}
	}
	out := []string{}
	for _, w := range bestWindows(spans, m.n) {
		a, z := spans[w.from].start, spans[w.to-1].end
		out = append(out, render(text, a, z, spans))
	}
	return out
}

// window is spans[from:to], matches that fit in one fragment.
type window struct{ from, to, score int }

// bestWindows slides over the matches and keeps the windows holding the
// most distinct words (then the most matches), not overlapping.
func bestWindows(spans []span, nwords int) []window {
	counts := make([]int, nwords)
	distinct, j := 0, 0
	all := make([]window, 0, len(spans))
	for i := range spans {
		for ; j < len(spans) && spans[j].end-spans[i].start <= fragLen; j++ {
			if counts[spans[j].word] == 0 {
				distinct++
			}
			counts[spans[j].word]++
		}
		all = append(all, window{i, j, distinct*10000 + j - i})
		if counts[spans[i].word]--; counts[spans[i].word] == 0 {
			distinct--
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].score > all[b].score })
	return pickApart(all, spans)
}

func pickApart(all []window, spans []span) []window {
	var out []window
	for _, w := range all {
		if len(out) == maxFrags {
			break
		}
		if len(out) == 1 && abs(spans[w.from].start-spans[out[0].from].start) < fragLen {
			continue
		}
		out = append(out, w)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].from < out[b].from })
	return out
}

func abs(n int) int { return max(n, -n) }

// render is the fragment of text around bytes a..z: escaped, its matches
// marked, "…" where text was left out.
func render(text string, a, z int, spans []span) string {
	lo, hi := frame(text, a, z)
	var b strings.Builder
	if lo > 0 {
		b.WriteString("…")
	}
	at := lo
	i := sort.Search(len(spans), func(i int) bool { return spans[i].start >= lo })
	for ; i < len(spans) && spans[i].end <= hi; i++ {
		b.WriteString(html.EscapeString(text[at:spans[i].start]))
		b.WriteString("<mark>" + html.EscapeString(text[spans[i].start:spans[i].end]) + "</mark>")
		at = spans[i].end
	}
	b.WriteString(html.EscapeString(text[at:hi]))
	if hi < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// frame widens a..z to about fragLen bytes, centred, cut at spaces where
// it can be, never inside a character.
func frame(text string, a, z int) (int, int) {
	lo := max(0, a-(fragLen-(z-a))/2)
	hi := min(len(text), lo+fragLen)
	lo = max(0, min(lo, hi-fragLen))
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo--
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi--
	}
	if lo > 0 {
		if sp := strings.IndexAny(text[lo:a], " \n\t"); sp >= 0 {
			lo += sp + 1
		}
	}
	if hi < len(text) {
		if sp := strings.LastIndexAny(text[z:hi], " \n\t"); sp >= 0 {
			hi = z + sp
		}
	}
	return lo, hi
}
