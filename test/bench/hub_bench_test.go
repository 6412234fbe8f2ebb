package bench

import (
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
	res := map[string][]time.Duration{}
	run := func(name string, op func(i int) (time.Duration, error)) {
		b.Run(name, func(b *testing.B) { res[name] = sequential(b, op) })
	}
	timed := func(op func(i int) error) func(int) (time.Duration, error) {
		return func(i int) (time.Duration, error) { t0 := time.Now(); err := op(i); return time.Since(t0), err }
	}
	run("get", timed(func(int) error { return expect(p.Do("GET", "/hub/wikipages/"+page, tok, nil).Status, 200) }))
	run("render", func(int) (time.Duration, error) { return renderChanged(p, rd, page) })
	run("rerender-unchanged", timed(func(int) error { _, err := rd.Render(p.Ctx(), page); return err }))
	queries := benchQueries()
	run("search", timed(func(i int) error {
		return expect(p.Do("GET", "/hub/search?q="+url.QueryEscape(queries[i%len(queries)]), tok, nil).Status, 200)
	}))
	reportHub(kind, res)
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

func reportHub(kind string, res map[string][]time.Duration) {
	p50 := func(l []time.Duration) float64 { return ms(l[len(l)/2]) }
	p99 := func(l []time.Duration) float64 { return ms(l[len(l)*99/100]) }
	g := res["get"]
	if len(g) == 0 {
		return
	}
	for _, op := range []string{"render", "rerender-unchanged", "search"} {
		if l := res[op]; len(l) > 0 {
			fmt.Printf("%-7s %-19s p50 %7.2f ms  p99 %7.2f ms  get by id p50 %5.2f ms  %s/get %.1f\n",
				kind, op, p50(l), p99(l), p50(g), op, p50(l)/p50(g))
		}
	}
}

// renderChanged clears the page's render hash, so the render runs in
// full, and answers how long the render took.
func renderChanged(p *testenv.Platform, rd *wiki.Renderer, id string) (time.Duration, error) {
	if _, err := p.Store.Collection(wiki.Pages).Update(p.Ctx(), query.ID(id), store.Update{Unset: []string{"renderHash"}}); err != nil {
		return 0, err
	}
	t0 := time.Now()
	out, err := rd.Render(p.Ctx(), id)
	if err == nil && !out.Rendered {
		err = fmt.Errorf("the page was not rendered")
	}
	return time.Since(t0), err
}

// seedRenderPage stores a knowledge base, 20 glossary terms and a
// 2,000-word page using each of them several times; its id.
func seedRenderPage(b *testing.B, p *testenv.Platform, tok string) string {
	do := func(path string, body map[string]any) string {
		r := p.Do(http.MethodPost, path, tok, body)
		if r.Status != http.StatusCreated {
			b.Fatalf("%s: %s", path, r.Body)
		}
		return r.Payload()["_id"].(string)
	}
	do("/hub/knowledgebases", map[string]any{"slug": "bench", "title": "Bench"})
	terms := make([]string, 20)
	for i := range terms {
		terms[i] = fmt.Sprintf("term%c%c", 'a'+i, 'k'+i)
		do("/hub/glossaries", map[string]any{"term": terms[i], "definition": "The *" + terms[i] + "* of the benchmark."})
	}
	return do("/hub/wikipages", map[string]any{"kbslug": "bench", "slug": "long", "title": "Long page", "body": longPage(terms)})
}

// longPage is about 2,000 words of Markdown: headings, lists, code, a
// table, a diagram, cross-links and the terms.
func longPage(terms []string) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for s := 0; s < 20; s++ {
		fmt.Fprintf(&sb, "## Section %d\n\n", s)
		for w := 0; w < 90; w++ {
			if w%9 == 0 {
				sb.WriteString(terms[rng.IntN(len(terms))] + " ")
			} else {
				sb.WriteString(vocabulary[zipf(rng)] + " ")
			}
		}
		fmt.Fprintf(&sb, "\n\n- item with [a link](wiki:bench/p%d)\n- `code` item\n\n", s%10)
		if s == 5 {
			sb.WriteString("| a | b |\n|---|---|\n| 1 | 2 |\n\n```mermaid\ngraph TD; A-->B;\n```\n\n")
		}
	}
	return sb.String()
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
