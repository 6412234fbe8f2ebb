package search

import (
	"math"
	"slices"
)

// BM25 over the text plus the title. The two are summed per term, the
// title's weighted by wTitle and hardly normalized by length (titles are
// short and alike), so that a title match outscores any body-only match of
// the same term: a body's share stays under idf*(k1+1), and a title's is
// above that for titles up to about 5 times the average length.
const (
	k1     = 1.2
	b      = 0.75
	bTitle = 0.3
	wTitle = 4.0
	// prefixWeight: a completion of the last word counts a little less than
	// the word itself.
	prefixWeight = 0.9
	// maxExpand bounds the completions of the last word tried.
	maxExpand = 64
)

// qterm is one query word as the terms of the index that match it.
type qterm struct {
	ids     []uint32
	weights []float64
	idf     float64 // its share of a full match, for coverage
}

func (s *shard) qterms(p plan) []qterm {
	out := make([]qterm, 0, len(p.words))
	for i, w := range p.words {
		var q qterm
		if id, ok := s.vocab[w]; ok && s.terms[id].df > 0 {
			q.add(id, 1)
		}
		if p.prefix && i == len(p.words)-1 {
			for _, id := range s.prefix.expand(s.terms, w, maxExpand) {
				if s.terms[id].text != w {
					q.add(id, prefixWeight)
				}
			}
		}
		q.idf = s.idf(s.maxDF(q.ids))
		out = append(out, q)
	}
	return out
}

func (q *qterm) add(id uint32, w float64) {
	q.ids = append(q.ids, id)
	q.weights = append(q.weights, w)
}

func (s *shard) maxDF(ids []uint32) int32 {
	var m int32
	for _, id := range ids {
		m = max(m, s.terms[id].df)
	}
	return m
}

func (s *shard) idf(df int32) float64 {
	n := float64(s.live)
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// scorer accumulates one query's scores in arrays by slot: dense arrays
// beat maps by far when a common word touches every document.
type scorer struct {
	s            *shard
	p            plan
	kb           uint32
	avgTL, avgBL float64
	acc, cov     []float32 // score and coverage so far
	best         []float32 // the current word's best form per slot
	touched, cur []uint32
}

func newScorer(s *shard, p plan) *scorer {
	n := len(s.stats)
	return &scorer{s: s, p: p, kb: s.kbs[p.kb],
		avgTL: avg(s.sumTL, s.live), avgBL: avg(s.sumBL, s.live),
		acc: make([]float32, n), cov: make([]float32, n), best: make([]float32, n)}
}

func avg(sum int64, n int) float64 {
	if n == 0 || sum <= 0 {
		return 1
	}
	return float64(sum) / float64(n)
}

// word scores one query word: per slot, its best-scoring form counts.
func (sc *scorer) word(q qterm) {
	for i, id := range q.ids {
		sc.postings(sc.s.terms[id].post, sc.s.idf(sc.s.terms[id].df)*q.weights[i])
	}
	for _, slot := range sc.cur {
		if sc.acc[slot] == 0 {
			sc.touched = append(sc.touched, slot)
		}
		sc.acc[slot] += sc.best[slot]
		sc.cov[slot] += float32(q.idf)
		sc.best[slot] = 0
	}
	sc.cur = sc.cur[:0]
}

func (sc *scorer) postings(post []posting, idf float64) {
	for _, po := range post {
		st := &sc.s.stats[po.slot]
		if !sc.allowed(st) {
			continue
		}
		v := float32(idf * sc.bm25(po, st))
		if sc.best[po.slot] == 0 {
			sc.cur = append(sc.cur, po.slot)
		}
		sc.best[po.slot] = max(sc.best[po.slot], v)
	}
}

func (sc *scorer) allowed(st *slotStat) bool {
	return !st.dead && sc.p.types&(1<<st.typ) != 0 &&
		(sc.p.kb == "" || st.kb == sc.kb) && (st.published || sc.p.unpub)
}

func (sc *scorer) bm25(po posting, st *slotStat) float64 {
	v := 0.0
	if po.body > 0 {
		tf := float64(po.body)
		v += tf * (k1 + 1) / (tf + k1*(1-b+b*float64(st.bl)/sc.avgBL))
	}
	if po.title > 0 {
		tf := float64(po.title)
		v += wTitle * tf * (k1 + 1) / (tf + k1*(1-bTitle+bTitle*float64(st.tl)/sc.avgTL))
	}
	return v
}

type scored struct {
	slot  uint32
	score float64
}

// top ranks the touched slots. Coverage, the share of the query's weight
// (idf) a document matched, scales its score, squared: missing a rare word
// costs much, a common one little, and documents matching more of the
// query rank above those matching fewer words however often or wherever
// (title) they do.
func (sc *scorer) top(total float64, limit int) []scored {
	out := make([]scored, 0, len(sc.touched))
	for _, slot := range sc.touched {
		c := float64(sc.cov[slot]) / total
		out = append(out, scored{slot, float64(sc.acc[slot]) * c * c})
	}
	slices.SortFunc(out, func(a, b scored) int { return sc.order(a, b) })
	return out[:min(len(out), limit)]
}

// order: best first; ties by key, so results are stable.
func (sc *scorer) order(a, b scored) int {
	if a.score != b.score {
		if a.score > b.score {
			return -1
		}
		return 1
	}
	ka, kb := sc.s.meta[a.slot].key, sc.s.meta[b.slot].key
	if ka < kb {
		return -1
	}
	if ka > kb {
		return 1
	}
	return 0
}
