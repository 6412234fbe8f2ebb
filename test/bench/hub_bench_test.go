package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/hub/search"
	"platform/modules/hub/wiki"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// BenchmarkHub measures, in one run on each store: the render of a
// 2,000-word wiki page with 20 glossary terms (the whole render step: hash,
// render, index, write), the render of an unchanged page (the hash check
// only), and single-client search latency over 10,000 indexed pages; each
// against a get of a wiki page by id through the API.
func BenchmarkHub(b *testing.B) {
	for _, kind := range []string{"sqlite", "mongodb"} {
		b.Run(kind, func(b *testing.B) { benchHub(b, kind) })
	}
}

func benchHub(b *testing.B, kind string) {
	p := testenv.NewPlatform(b, testenv.Options{Store: kind})
	tok := p.Token("hub.*")
	page := seedRenderPage(b, p, tok)
	rd := &wiki.Renderer{Service: p.Service, Index: p.Search, SiteURL: p.Config.HubSiteURL}
	seedSearchPages(b, p, 10_000)
	res := latencies{}
	run := func(name string, op func(i int) (time.Duration, error)) { res.run(b, name, op) }
	run("get", timed(func(int) error { return expect(p.Do("GET", "/hub/wikipages/"+page, tok, nil).Status, 200) }))
	run("render", func(int) (time.Duration, error) { return renderChanged(p, rd, page) })
	run("rerender-unchanged", timed(func(int) error { _, err := rd.Render(p.Ctx(), page); return err }))
	queries := benchQueries()
	run("search", timed(func(i int) error {
		return expect(p.Do("GET", "/hub/search?q="+url.QueryEscape(queries[i%len(queries)]), tok, nil).Status, 200)
	}))
	reportVsGet(kind, res, "render", "rerender-unchanged", "search")
}

// latencies are the sorted latencies of each sub-benchmark, by name.
type latencies map[string][]time.Duration

// run measures op sequentially as the sub-benchmark name.
func (l latencies) run(b *testing.B, name string, op func(i int) (time.Duration, error)) {
	b.Run(name, func(b *testing.B) { l[name] = sequential(b, op) })
}

// timed measures how long op takes.
func timed(op func(i int) error) func(int) (time.Duration, error) {
	return func(i int) (time.Duration, error) { t0 := time.Now(); err := op(i); return time.Since(t0), err }
}

// sequential runs op b.N times one after another and answers the sorted
// latencies op measured.
func sequential(b *testing.B, op func(i int) (time.Duration, error)) []time.Duration {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := op(i)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, d)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	return lat
}

// reportVsGet prints, for each of ops, its p50/p95/p99 against the p50
// of res["get"] (the API's get by id, the baseline).
func reportVsGet(kind string, res map[string][]time.Duration, ops ...string) {
	g := res["get"]
	if len(g) == 0 {
		return
	}
	for _, op := range ops {
		if l := res[op]; len(l) > 0 {
			fmt.Printf("%-7s %-19s p50 %7.2f ms  p95 %7.2f ms  p99 %7.2f ms  get by id p50 %5.2f ms  %s/get %.1f\n", kind, op,
				ms(quantile(l, 50)), ms(quantile(l, 95)), ms(quantile(l, 99)), ms(quantile(g, 50)), op, ms(quantile(l, 50))/ms(quantile(g, 50)))
		}
	}
}

// renderer is the render step of a kind of page (wiki.Renderer,
// pages.Renderer).
type renderer interface {
	Render(ctx context.Context, id string) (contract.RenderOutput, error)
}

// renderChanged clears the page's render hash, so the render runs in
// full, and answers how long the render took.
func renderChanged(p *testenv.Platform, rd renderer, id string) (time.Duration, error) {
	return renderAfter(p.Ctx(), rd, id, func() error {
		_, err := p.Store.Collection(wiki.Pages).Update(p.Ctx(), query.ID(id), store.Update{Unset: []string{"renderHash"}})
		return err
	})
}

// renderAfter makes change (untimed; it must change the render's inputs)
// and answers how long the render of id then took.
func renderAfter(ctx context.Context, rd renderer, id string, change func() error) (time.Duration, error) {
	if err := change(); err != nil {
		return 0, err
	}
	t0 := time.Now()
	out, err := rd.Render(ctx, id)
	if err == nil && !out.Rendered {
		err = fmt.Errorf("the page was not rendered")
	}
	return time.Since(t0), err
}

// seedRenderPage stores a knowledge base, 20 glossary terms and a
// 2,000-word page using each of them several times; its id.
func seedRenderPage(b *testing.B, p *testenv.Platform, tok string) string {
	create(b, p, tok, "/hub/knowledgebases", map[string]any{"slug": "bench", "title": "Bench"})
	terms := seedGlossary(b, p, tok)
	return create(b, p, tok, "/hub/wikipages", map[string]any{"kbslug": "bench", "slug": "long", "title": "Long page", "body": longPage(terms)})
}

// seedGlossary stores 20 glossary terms; the terms.
func seedGlossary(b *testing.B, p *testenv.Platform, tok string) []string {
	terms := make([]string, 20)
	for i := range terms {
		terms[i] = fmt.Sprintf("term%c%c", 'a'+i, 'k'+i)
		create(b, p, tok, "/hub/glossaries", map[string]any{"term": terms[i], "definition": "The *" + terms[i] + "* of the benchmark."})
	}
	return terms
}

// create POSTs body to path through the API; the new record's id.
func create(b *testing.B, p *testenv.Platform, tok, path string, body map[string]any) string {
	r := p.Do(http.MethodPost, path, tok, body)
	if r.Status != http.StatusCreated {
		b.Fatalf("%s: %s", path, r.Body)
	}
	return r.Payload()["_id"].(string)
}

// longPage is about 2,000 words of Markdown: headings, lists, code, a
// table, a diagram, cross-links and the terms.
func longPage(terms []string) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for s := 0; s < 20; s++ {
		fmt.Fprintf(&sb, "## Section %d\n\n", s)
		prose(&sb, rng, terms, 90)
		fmt.Fprintf(&sb, "\n\n- item with [a link](wiki:bench/p%d)\n- `code` item\n\n", s%10)
		if s == 5 {
			sb.WriteString("| a | b |\n|---|---|\n| 1 | 2 |\n\n```mermaid\ngraph TD; A-->B;\n```\n\n")
		}
	}
	return sb.String()
}

// prose writes n words of the vocabulary, every ninth a glossary term.
func prose(sb *strings.Builder, rng *rand.Rand, terms []string, n int) {
	for w := 0; w < n; w++ {
		if w%9 == 0 {
			sb.WriteString(terms[rng.IntN(len(terms))] + " ")
		} else {
			sb.WriteString(vocabulary[zipf(rng)] + " ")
		}
	}
}

// seedSearchPages indexes n generated pages of about 300 words, as a
// backfill (PutMany): a Put per page would measure the write path.
func seedSearchPages(b *testing.B, p *testenv.Platform, n int) {
	rng := rand.New(rand.NewPCG(3, 4))
	docs := make([]search.Doc, n)
	for i := range docs {
		words := make([]string, 300)
		for w := range words {
			words[w] = vocabulary[zipf(rng)]
		}
		docs[i] = search.Doc{Type: search.TypeWikiPage, ID: fmt.Sprintf("%024x", i+1), Title: strings.Join(words[:4], " "),
			Text: strings.Join(words, " "), KB: "bench", Published: true}
	}
	if err := p.Search.PutMany(p.Ctx(), docs); err != nil {
		b.Fatal(err)
	}
}

// benchQueries mix very common words, rare ones, several words and a
// prefix of the last one.
func benchQueries() []string {
	return []string{"the", "the and of", vocabulary[len(vocabulary)-1], vocabulary[500] + " " + vocabulary[900],
		"platform", vocabulary[3] + " " + vocabulary[700][:3], "of", vocabulary[40] + " the"}
}

// vocabulary is a word list ranked by frequency (zipf picks from it).
var vocabulary = func() []string {
	common := strings.Fields("the of and to a in is it you that he was for on are with as his they be at one have this from or had by " +
		"platform page search render workflow customer record glossary knowledge base")
	for i := len(common); i < 2000; i++ {
		common = append(common, fmt.Sprintf("w%dx%c", i, 'a'+i%26))
	}
	return common
}()

func zipf(rng *rand.Rand) int {
	for {
		if i := int(1/(rng.Float64()+1e-9)) - 1; i < len(vocabulary) {
			return i
		}
	}
}
