package search

import (
	"context"
	"slices"
	"sort"

	"platform/kernel/tenant"
)

// Search answers q for the customer of ctx, best first.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	p, err := parse(q)
	if err != nil {
		return nil, err
	}
	if _, err := tenant.Customer(ctx); err != nil {
		return nil, err
	}
	if len(p.words) == 0 || p.types == 0 {
		return []Hit{}, nil
	}
	e, err := x.current(ctx)
	if err != nil {
		return nil, err
	}
	e.mu.RLock()
	hits, texts := e.sh.search(p)
	e.mu.RUnlock()
	if err := x.snippets(ctx, hits, texts, p); err != nil {
		return nil, err
	}
	return hits, nil
}

// search ranks the shard's documents for p: the hits and their texts
// when the shard holds them.
func (s *shard) search(p plan) ([]Hit, []string) {
	if _, ok := s.kbs[p.kb]; !ok || s.live == 0 {
		return []Hit{}, nil
	}
	sc := newScorer(s, p)
	total := 0.0
	for _, q := range s.qterms(p) {
		total += q.idf
		sc.word(q)
	}
	ranked := sc.top(total, p.limit)
	hits := make([]Hit, len(ranked))
	texts := make([]string, len(ranked))
	for i, r := range ranked {
		hits[i], texts[i] = s.hit(r), s.meta[r.slot].text
	}
	return hits, texts
}

// hit copies what a result shows: the shard changes once the lock is gone.
func (s *shard) hit(r scored) Hit {
	m, st := s.meta[r.slot], s.stats[r.slot]
	return Hit{Type: typeNames[st.typ], ID: m.ref, Title: m.title, Score: r.score,
		KB: m.kb, Parent: m.parent, Terms: slices.Clone(m.terms), Snippets: []string{}}
}

// Candidates returns the ids of the customer's wiki pages whose text holds
// every one of words (each tokenized as documents are), published or not:
// where a glossary term may occur. Whether the words occur together is for
// the caller to check on the page.
func (x *Index) Candidates(ctx context.Context, words []string) ([]string, error) {
	var terms []string
	for _, w := range words {
		terms = append(terms, tokens(w)...)
	}
	if len(terms) == 0 {
		return []string{}, nil
	}
	e, err := x.current(ctx)
	if err != nil {
		return nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.sh.candidates(terms), nil
}

func (s *shard) candidates(terms []string) []string {
	lists := make([][]posting, 0, len(terms))
	for _, t := range terms {
		id, ok := s.vocab[t]
		if !ok {
			return []string{}
		}
		lists = append(lists, s.terms[id].post)
	}
	// Start from the rarest word: the set only shrinks from there.
	sort.Slice(lists, func(i, j int) bool { return len(lists[i]) < len(lists[j]) })
	set := map[uint32]bool{}
	for _, po := range lists[0] {
		st := s.stats[po.slot]
		if po.body > 0 && !st.dead && typeNames[st.typ] == TypeWikiPage {
			set[po.slot] = true
		}
	}
	for _, l := range lists[1:] {
		set = within(set, l)
	}
	out := make([]string, 0, len(set))
	for slot := range set {
		out = append(out, s.meta[slot].ref)
	}
	sort.Strings(out)
	return out
}

// within keeps the slots of set whose text holds the list's term.
func within(set map[uint32]bool, l []posting) map[uint32]bool {
	next := map[uint32]bool{}
	for _, po := range l {
		if po.body > 0 && set[po.slot] {
			next[po.slot] = true
		}
	}
	return next
}
