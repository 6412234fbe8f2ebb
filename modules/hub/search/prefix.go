package search

import (
	"sort"
	"strings"
)

// prefixIndex finds the terms starting with a prefix: term ids sorted by
// text, plus a short unsorted tail of new terms merged in from time to time
// so that adding a term stays cheap.
type prefixIndex struct {
	sorted []uint32
	tail   []uint32
}

const maxTail = 2048

func (p *prefixIndex) add(id uint32) { p.tail = append(p.tail, id) }

// settle merges the tail when it grew long (or always, with force).
func (p *prefixIndex) settle(terms []termEntry, force bool) {
	if len(p.tail) == 0 || !force && len(p.tail) < maxTail {
		return
	}
	p.sorted = append(p.sorted, p.tail...)
	p.tail = p.tail[:0]
	sort.Slice(p.sorted, func(i, j int) bool { return terms[p.sorted[i]].text < terms[p.sorted[j]].text })
}

// expand returns up to limit live terms starting with pre, most frequent
// first: a short prefix matches thousands of terms, and the frequent ones
// are what the searcher most likely means.
func (p *prefixIndex) expand(terms []termEntry, pre string, limit int) []uint32 {
	var out []uint32
	keep := func(id uint32) {
		if terms[id].df > 0 && strings.HasPrefix(terms[id].text, pre) {
			out = append(out, id)
		}
	}
	i := sort.Search(len(p.sorted), func(i int) bool { return terms[p.sorted[i]].text >= pre })
	for ; i < len(p.sorted) && strings.HasPrefix(terms[p.sorted[i]].text, pre); i++ {
		keep(p.sorted[i])
	}
	for _, id := range p.tail {
		keep(id)
	}
	sort.Slice(out, func(i, j int) bool { return terms[out[i]].df > terms[out[j]].df })
	return out[:min(len(out), limit)]
}
