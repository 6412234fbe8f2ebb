package bench

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"platform/modules/cms"
	"platform/modules/cms/pages"
	"platform/modules/hub/wiki"
	"platform/test/testenv"
)

// BenchmarkCMS measures, in one run on each store, on a web page of 40
// blocks of every type (Markdown text blocks of about 300 words, 20
// glossary terms): the render step (hash, render, write), the render of
// an unchanged page (the hash check only), publish/unpublish and the
// public site's answer, each against a get of the page by id through the
// API. The platform runs no worker, so no render workflow competes with
// what is measured: the bench calls the renderer itself.
func BenchmarkCMS(b *testing.B) {
	for _, kind := range []string{"sqlite", "mongodb"} {
		b.Run(kind, func(b *testing.B) { benchCMS(b, kind) })
	}
}

func benchCMS(b *testing.B, kind string) {
	p := testenv.NewPlatform(b, testenv.Options{Store: kind})
	tok := p.Token("cms.*", "hub.*")
	// As cmd/platform/app/cms.go builds it.
	rd := &pages.Renderer{Service: p.Service, Glossary: &wiki.Renderer{Service: p.Service, Index: p.Search, SiteURL: p.Config.HubSiteURL},
		CSS: cms.Stylesheet}
	const slug = "forty-blocks"
	page := create(b, p, tok, "/cms/webpages", map[string]any{"slug": slug, "title": "Forty blocks", "blocks": fortyBlocks(b, seedGlossary(b, p, tok))})
	// The site answers 503 until the page's first render.
	if _, err := renderAfter(p.Ctx(), rd, page, func() error { return nil }); err != nil {
		b.Fatal(err)
	}
	res := latencies{}
	res.run(b, "get", timed(func(int) error { return expect(p.Do(http.MethodGet, "/cms/webpages/"+page, tok, nil).Status, 200) }))
	res.run(b, "render", renderEdited(p, rd, tok, page))
	res.run(b, "rerender-unchanged", timed(func(int) error { _, err := rd.Render(p.Ctx(), page); return err }))
	pub := &publisher{p: p, tok: tok, id: page}
	res.run(b, "publish", timed(func(int) error { return pub.toggle() }))
	if err := pub.publish(); err != nil {
		b.Fatal(err)
	}
	res.run(b, "site", timed(func(int) error { return expect(p.Do(http.MethodGet, "/site/en/"+slug, "", nil).Status, 200) }))
	reportVsGet(kind, res, "render", "rerender-unchanged", "publish", "site")
	reportCMS(kind, res)
}

// renderEdited changes the page's title through the API before each
// render (untimed), so every render runs in full, as after an author's
// save; a new title each time, since i restarts with every b.N.
func renderEdited(p *testenv.Platform, rd *pages.Renderer, tok, id string) func(int) (time.Duration, error) {
	edits := 0
	return func(int) (time.Duration, error) {
		edits++
		return renderAfter(p.Ctx(), rd, id, func() error {
			body := map[string]any{"title": fmt.Sprintf("Forty blocks, edit %d", edits)}
			return expect(p.Do(http.MethodPatch, "/cms/webpages/"+id, tok, body).Status, 200)
		})
	}
}

// publisher alternates publish and unpublish of a page: each call is a
// real change (publishing a published page is a no-op, which would
// measure nothing).
type publisher struct {
	p         *testenv.Platform
	tok, id   string
	published bool
}

func (pb *publisher) toggle() error {
	if pb.published {
		return pb.set("unpublish", false)
	}
	return pb.publish()
}

func (pb *publisher) publish() error { return pb.set("publish", true) }

func (pb *publisher) set(action string, on bool) error {
	if err := expect(pb.p.Do(http.MethodPost, "/cms/webpages/"+pb.id+"/actions/"+action, pb.tok, nil).Status, 200); err != nil {
		return err
	}
	pb.published = on
	return nil
}

// reportCMS adds the site's single-client rate against get's and the
// requirement on publish.
func reportCMS(kind string, res latencies) {
	g, s, pub := res["get"], res["site"], res["publish"]
	if len(g) == 0 || len(s) == 0 || len(pub) == 0 {
		return
	}
	fmt.Printf("%-7s %-19s %8.1f req/s  get by id %8.1f req/s  site/get %.2f (single client)\n", kind, "site", rate(s), rate(g), rate(s)/rate(g))
	verdict := "met"
	if p95 := quantile(pub, 95); p95 >= 100*time.Millisecond {
		verdict = "NOT met"
	}
	fmt.Printf("%-7s %-19s p95 %.2f ms: requirement p95 < 100 ms for 40 blocks %s\n", kind, "publish", ms(quantile(pub, 95)), verdict)
}

// rate is the requests per second of one client making the requests of
// lat back to back.
func rate(lat []time.Duration) float64 {
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	return float64(len(lat)) / sum.Seconds()
}

// blockTypes is one valid block of each of the ten types, as a client
// sends them (modules/cms/cms_test.go's everyType); fortyBlocks replaces
// the text block's body.
const blockTypes = `[
 {"type":"hero","headline":"Welcome","subline":"We build things","heroImage":"https://img.test/hero.jpg"},
 {"type":"text","body":"replaced"},
 {"type":"image","url":"https://img.test/a.png","alt":"A chart","caption":"Growth"},
 {"type":"gallery","images":[{"url":"https://img.test/1.png","alt":"One"},{"url":"https://img.test/2.png","alt":"Two","caption":"Second"}]},
 {"type":"cta","label":"Start now","url":"https://app.test/signup"},
 {"type":"form","formId":"65a1b2c3d4e5f6a7b8c9d0e1","title":"Contact us"},
 {"type":"embed","url":"https://www.youtube.com/watch?v=dQw4w9WgXcQ","title":"Our product"},
 {"type":"accordion","items":[{"question":"Is it free?","answer":"Yes, *mostly*."}]},
 {"type":"pricing","plans":[{"name":"Basic","price":9.9,"currency":"EUR","period":"month","features":["One user"],"cta":{"label":"Buy","url":"https://app.test/buy"}}]},
 {"type":"testimonials","items":[{"quote":"Great tool","author":"Ada","role":"CTO","avatar":"https://img.test/ada.png"}]}
]`

// fortyBlocks cycles four times through every block type; each text
// block is about 300 words of Markdown using the glossary's terms.
func fortyBlocks(b *testing.B, terms []string) []any {
	rng := rand.New(rand.NewPCG(5, 6))
	var list []any
	for len(list) < 40 {
		var round []map[string]any
		if err := json.Unmarshal([]byte(blockTypes), &round); err != nil {
			b.Fatal(err)
		}
		for _, block := range round {
			block["order"] = 10 * (len(list) + 1)
			if block["type"] == "text" {
				block["body"] = textBody(rng, terms)
			}
			list = append(list, block)
		}
	}
	return list
}

// textBody is three sections of 100 words, with a list, inline code and
// a cross-link (to no page: a broken link, which renders).
func textBody(rng *rand.Rand, terms []string) string {
	var sb strings.Builder
	for s := 0; s < 3; s++ {
		fmt.Fprintf(&sb, "## Part %d\n\n", s)
		prose(&sb, rng, terms, 100)
		fmt.Fprintf(&sb, "\n\n- see [the guide](wiki:bench/p%d)\n- a `code` item\n\n", s)
	}
	return sb.String()
}
