package search

import (
	"strings"
	"time"
)

// posting is one document's counts of one term.
type posting struct {
	slot        uint32
	title, body uint16
}

type termEntry struct {
	text string
	df   int32 // live documents holding the term
	post []posting
}

// slotStat is what scoring reads per posting, kept small and apart from
// the rest of a document's metadata so the hot loop stays in cache.
type slotStat struct {
	tl, bl    uint32
	kb        uint32
	typ       uint8
	published bool
	dead      bool
}

// slotMeta is the rest: what a hit shows, and the terms to forget.
type slotMeta struct {
	key, ref, kb, parent, title string
	text                        string // only with Options.TextsInMemory
	terms                       []string
	ids                         []uint32
}

// keyState is the latest write applied for a key (slot -1: removed).
type keyState struct {
	slot int32
	seq  int64
}

// shard is one customer's in-memory index. Documents take slots in the
// order they arrive; a replaced or removed one leaves a dead slot, whose
// postings scoring skips until the next rebuild compacts them away.
type shard struct {
	vocab  map[string]uint32
	terms  []termEntry
	prefix prefixIndex
	stats  []slotStat
	meta   []slotMeta
	byKey  map[string]keyState
	kbs    map[string]uint32

	live, dead   int
	sumTL, sumBL int64
	bytes        int64

	hi    int64               // counter value all lower numbers were looked for at
	gaps  map[int64]time.Time // numbers below hi not seen yet, since when
	built time.Time
}

func newShard(now time.Time) *shard {
	return &shard{vocab: map[string]uint32{}, byKey: map[string]keyState{},
		kbs: map[string]uint32{"": 0}, gaps: map[int64]time.Time{}, built: now}
}

// apply brings r into the index unless a later write of its key is in.
func (s *shard) apply(r record) {
	st, ok := s.byKey[r.key]
	if ok && st.seq >= r.seq {
		return
	}
	if ok && st.slot >= 0 {
		s.kill(st.slot)
	}
	if r.deleted {
		s.byKey[r.key] = keyState{slot: -1, seq: r.seq}
		return
	}
	s.byKey[r.key] = keyState{slot: s.add(r), seq: r.seq}
}

func (s *shard) add(r record) int32 {
	slot := uint32(len(s.stats))
	m := slotMeta{key: r.key, ref: r.ref, kb: r.kb, parent: r.parent, title: r.title, text: r.text, terms: r.terms}
	eachTerm(r.tf, r.bf, func(term string, title, body int) {
		id := s.termID(term)
		t := &s.terms[id]
		t.post = append(t.post, posting{slot: slot, title: clamp16(title), body: clamp16(body)})
		t.df++
		m.ids = append(m.ids, id)
	})
	s.stats = append(s.stats, slotStat{tl: uint32(r.tl), bl: uint32(r.bl), kb: s.kbID(r.kb), typ: r.typ, published: r.published})
	s.meta = append(s.meta, m)
	s.live++
	s.sumTL += r.tl
	s.sumBL += r.bl
	s.bytes += int64(len(m.ids))*12 + int64(len(r.title)+len(r.key)+len(r.ref)+len(r.text)) + 160
	return int32(slot)
}

// kill makes a slot dead: out of the counts, its metadata freed.
func (s *shard) kill(slot int32) {
	st := &s.stats[slot]
	for _, id := range s.meta[slot].ids {
		s.terms[id].df--
	}
	st.dead = true
	s.live--
	s.dead++
	s.sumTL -= int64(st.tl)
	s.sumBL -= int64(st.bl)
	s.bytes -= int64(len(s.meta[slot].ids))*4 + int64(len(s.meta[slot].text))
	s.meta[slot] = slotMeta{}
}

func (s *shard) termID(term string) uint32 {
	if id, ok := s.vocab[term]; ok {
		return id
	}
	id := uint32(len(s.terms))
	term = strings.Clone(term) // not the stored document's whole string
	s.vocab[term] = id
	s.terms = append(s.terms, termEntry{text: term})
	s.prefix.add(id)
	s.bytes += int64(len(term)) + 64
	return id
}

func (s *shard) kbID(kb string) uint32 {
	if id, ok := s.kbs[kb]; ok {
		return id
	}
	id := uint32(len(s.kbs))
	s.kbs[strings.Clone(kb)] = id
	return id
}

func clamp16(n int) uint16 { return uint16(min(n, 1<<16-1)) }

// eachTerm merges a document's title and text frequencies per term.
func eachTerm(tf, bf string, fn func(term string, title, body int)) {
	title := map[string]int{}
	eachFreq(tf, func(t string, n int) { title[t] = n })
	eachFreq(bf, func(t string, n int) {
		fn(t, title[t], n)
		delete(title, t)
	})
	for t, n := range title {
		fn(t, n, 0)
	}
}

// needsCompaction: dead slots cost scoring time and memory.
func (s *shard) needsCompaction() bool { return s.dead > 1000 && s.dead > s.live }
