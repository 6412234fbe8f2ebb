package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/store"
)

// The generated corpus of the latency measurements: pages of about 300
// words drawn from a Zipf-like vocabulary whose most frequent words are
// English function words, so "the" is in nearly every page.
var corpusPages = envInt("SEARCH_CORPUS_PAGES", 10_000)

const (
	pageWords = 300
	vocabSize = 40_000
)

var commonWords = strings.Fields("the of and to a in is for that it on with as was be by this are or from at an have not")

type corpus struct {
	x       *Index
	st      store.Store
	ctx     context.Context
	vocab   []string
	queries []string
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func newCorpus(tb testing.TB) *corpus {
	tb.Helper()
	st := newStore(tb)
	r := rand.New(rand.NewPCG(1, 2))
	c := &corpus{st: st, ctx: ctxOf("customer-bench"), vocab: vocabulary(r)}
	c.x = newIndex(tb, st, Options{})
	start := time.Now()
	c.seed(tb, r)
	tb.Logf("seeded %d pages in %v", corpusPages, time.Since(start).Round(time.Millisecond))
	c.queries = c.makeQueries(r)
	return c
}

// vocabulary: the common words, then made-up words of two to four syllables.
func vocabulary(r *rand.Rand) []string {
	syl := strings.Fields("ka lo mi nu pe ra si to ve za bri cho dex fa gon hul jin kev lum mor nix pra qui rus tal vin wex yor")
	seen := map[string]bool{}
	out := append([]string(nil), commonWords...)
	for _, w := range out {
		seen[w] = true
	}
	for len(out) < vocabSize {
		var b strings.Builder
		for n := 2 + r.IntN(3); n > 0; n-- {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func (c *corpus) text(z *rand.Zipf, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = c.vocab[z.Uint64()]
	}
	return strings.Join(words, " ")
}

// seed stores the pages as Put would, in batches: a Put per page would
// measure the write path, which is not what these tests are about.
func (c *corpus) seed(tb testing.TB, r *rand.Rand) {
	z := rand.NewZipf(r, 1.07, 2, vocabSize-1)
	now := time.Now().UTC()
	var batch []store.Doc
	for i := 1; i <= corpusPages; i++ {
		d := Doc{Type: TypeWikiPage, ID: fmt.Sprintf("%024x", i), Title: c.text(z, 2+r.IntN(5)),
			Text: c.text(z, pageWords-50+r.IntN(100)), KB: fmt.Sprintf("kb%d", i%5), Published: i%10 != 0}
		set := withID(encode(d, now), docKey("customer-bench", d.Type, d.ID))
		set[fSeq] = int64(i)
		if batch = append(batch, set); len(batch) == 500 || i == corpusPages {
			require.NoError(tb, c.x.docs().InsertMany(c.ctx, batch))
			batch = nil
		}
	}
	_, err := c.st.Collection(seqCollection).Upsert(c.ctx, "customer-bench",
		store.Update{Set: store.Doc{"n": int64(corpusPages)}})
	require.NoError(tb, err)
}

// makeQueries mixes very common words, rare words, prefixes and both.
func (c *corpus) makeQueries(r *rand.Rand) []string {
	v := c.vocab
	pick := func(lo, hi int) string { return v[lo+r.IntN(hi-lo)] }
	pre := func(w string) string { return w[:min(len(w), 4)] }
	var qs []string
	for range 10 {
		qs = append(qs,
			"the", "the of and", pick(0, 25)+" "+pick(0, 25)+" "+pick(0, 25)+" "+pick(0, 25),
			pick(5000, vocabSize), pick(1000, 5000)+" "+pick(5000, vocabSize),
			pre(pick(50, 2000)), pick(25, 500)+" "+pre(pick(100, 3000)),
			"the "+pick(2000, vocabSize), strings.Join(v[:16], " "))
	}
	return qs
}

func (c *corpus) search(tb testing.TB, q string) time.Duration {
	start := time.Now()
	hits, err := c.x.Search(c.ctx, Query{Q: q, Types: allTypes, Unpublished: true})
	d := time.Since(start)
	require.NoError(tb, err)
	_ = hits
	return d
}

// percentiles returns the 50th, 95th and 99th percentiles in milliseconds.
func percentiles(ds []time.Duration) (p50, p95, p99 float64) {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(p float64) float64 {
		return float64(s[min(len(s)-1, int(p*float64(len(s))))].Microseconds()) / 1000
	}
	return at(0.50), at(0.95), at(0.99)
}
