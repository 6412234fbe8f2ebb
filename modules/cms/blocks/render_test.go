package blocks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"platform/kernel/render"
	"platform/kernel/store"
)

func renderPage(t testing.TB, in Input) (Output, *html.Node) {
	t.Helper()
	out, err := Render(in)
	require.NoError(t, err)
	return out, parse(t, out.HTML)
}

func TestRenderEveryType(t *testing.T) {
	out, doc := renderPage(t, Input{Title: "Home & more", Description: "All <about> us", Locale: "en",
		Blocks: valid(t, everyType), Snippets: snippets(t), SiteCSS: "/site.css"})
	assert.True(t, strings.HasPrefix(out.HTML, "<!DOCTYPE html>"))
	assert.Equal(t, "en", attr(elements(doc, "html")[0], "lang"))
	assert.Equal(t, "Home & more", textOf(elements(doc, "title")[0]))
	assertHead(t, doc)
	main := elements(doc, "main")
	require.Len(t, main, 1)
	assert.Equal(t, []string{"hero", "text", "image", "gallery", "cta", "form", "embed", "accordion", "pricing", "testimonials", "snippet"},
		blockTypes(main[0]))
	assertHarmless(t, doc, "every type")
	assert.Empty(t, out.MissingSnippets)
}

// assertHead checks the head holds exactly what a page needs.
func assertHead(t *testing.T, doc *html.Node) {
	t.Helper()
	metas := elements(doc, "meta")
	require.Len(t, metas, 3)
	assert.Equal(t, "utf-8", attr(metas[0], "charset"))
	assert.Equal(t, "width=device-width, initial-scale=1", attr(metas[1], "content"))
	assert.Equal(t, "All <about> us", attr(metas[2], "content"))
	links := elements(doc, "link")
	require.Len(t, links, 1)
	assert.Equal(t, "/site.css", attr(links[0], "href"))
}

// blockTypes are the types of the blocks directly in n, by their class.
func blockTypes(n *html.Node) []string {
	var types []string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			for _, class := range strings.Fields(attr(c, "class")) {
				if typ, ok := strings.CutPrefix(class, "block-"); ok {
					types = append(types, typ)
				}
			}
		}
	}
	return types
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func TestRenderEachType(t *testing.T) {
	cases := []struct {
		name, block string
		check       func(t *testing.T, main *html.Node)
	}{
		{"hero", `{"type":"hero","headline":"Hi <there>","subline":"Sub","heroImage":"https://i.test/h.jpg"}`, func(t *testing.T, m *html.Node) {
			assert.Equal(t, "Hi <there>", textOf(elements(m, "h1")[0]))
			assert.Equal(t, "https://i.test/h.jpg", attr(elements(m, "img")[0], "src"))
		}},
		{"text", `{"type":"text","body":"# Title\n\n<script>x</script>\n\n*em*"}`, func(t *testing.T, m *html.Node) {
			assert.Equal(t, "title", attr(elements(m, "h1")[0], "id"))
			assert.Len(t, elements(m, "em"), 1)
		}},
		{"image", `{"type":"image","url":"https://i.test/a.png","alt":"A \"chart\"","caption":"Cap"}`, func(t *testing.T, m *html.Node) {
			img := elements(m, "img")[0]
			assert.Equal(t, `A "chart"`, attr(img, "alt"))
			assert.Equal(t, "lazy", attr(img, "loading"))
			assert.Equal(t, "Cap", textOf(elements(m, "figcaption")[0]))
		}},
		{"gallery", `{"type":"gallery","images":[{"url":"https://i.test/1.png","alt":"1"},{"url":"https://i.test/2.png","alt":"2"}]}`, func(t *testing.T, m *html.Node) {
			assert.Len(t, elements(m, "figure"), 2)
		}},
		{"cta", `{"type":"cta","label":"Go","url":"https://a.test/x?a=1&b=2"}`, func(t *testing.T, m *html.Node) {
			a := elements(m, "a")[0]
			assert.Equal(t, "https://a.test/x?a=1&b=2", attr(a, "href"))
			assert.Equal(t, "Go", textOf(a))
		}},
		{"form", `{"type":"form","formId":"65a1b2c3d4e5f6a7b8c9d0e1","title":"Write us"}`, func(t *testing.T, m *html.Node) {
			div := elements(m, "div")[0]
			assert.Contains(t, attr(div, "class"), "block-form")
			assert.Equal(t, "65a1b2c3d4e5f6a7b8c9d0e1", attr(div, "data-form-id"))
			assert.Equal(t, "Write us", textOf(elements(m, "h2")[0]))
			assert.Len(t, elements(m, "form"), 0)
		}},
		{"embed", `{"type":"embed","url":"https://vimeo.com/76979871","title":"Demo"}`, func(t *testing.T, m *html.Node) {
			frames := elements(m, "iframe")
			require.Len(t, frames, 1)
			f := frames[0]
			assert.Equal(t, "https://player.vimeo.com/video/76979871", attr(f, "src"))
			assert.Equal(t, "Demo", attr(f, "title"))
			assert.Equal(t, "lazy", attr(f, "loading"))
			assert.Equal(t, "strict-origin-when-cross-origin", attr(f, "referrerpolicy"))
			assert.Equal(t, "allow-scripts allow-same-origin allow-presentation", attr(f, "sandbox"))
		}},
		{"accordion", `{"type":"accordion","items":[{"question":"Q1","answer":"**A1**"},{"question":"Q2","answer":"A2"}]}`, func(t *testing.T, m *html.Node) {
			require.Len(t, elements(m, "details"), 2)
			assert.Equal(t, "Q1", textOf(elements(m, "summary")[0]))
			assert.Equal(t, "A1", textOf(elements(m, "strong")[0]))
		}},
		{"pricing", `{"type":"pricing","plans":[{"name":"Pro","price":1234.5,"currency":"CHF","period":"year","features":["a","b"],"cta":{"label":"Buy","url":"https://a.test/"}}]}`, func(t *testing.T, m *html.Node) {
			assert.Equal(t, "ProCHF\u00a01,234.50 per yearabBuy", textOf(elements(m, "li")[0]))
			assert.Equal(t, "https://a.test/", attr(elements(m, "a")[0], "href"))
		}},
		{"testimonials", `{"type":"testimonials","items":[{"quote":"Q","author":"A","role":"R","avatar":"https://i.test/a.png"},{"quote":"Q2","author":"B"}]}`, func(t *testing.T, m *html.Node) {
			ul := elements(m, "ul")[0]
			assert.Contains(t, attr(ul, "class"), "carousel")
			assert.Len(t, elements(ul, "li"), 2)
			assert.Equal(t, "QA R", textOf(elements(m, "li")[0]))
		}},
		{"snippet", `{"type":"snippet","snippetId":"` + snippetID + `"}`, func(t *testing.T, m *html.Node) {
			assert.Equal(t, "Newsletter", textOf(elements(m, "a")[0]))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, doc := renderPage(t, Input{Blocks: valid(t, "["+c.block+"]"), Snippets: snippets(t)})
			main := elements(doc, "main")[0]
			assert.Equal(t, []string{c.name}, blockTypes(main))
			c.check(t, main)
			assertHarmless(t, doc, c.name)
		})
	}
}

func TestRenderOrdersAndLeavesOutInvisibleBlocks(t *testing.T) {
	_, doc := renderPage(t, Input{Blocks: valid(t, `[
		{"type":"cta","label":"c","url":"https://a.test","order":2},
		{"type":"hero","headline":"h","order":1},
		{"type":"text","body":"t","order":1},
		{"type":"image","url":"https://a.test/i.png","alt":"i","order":0,"visible":false},
		{"type":"form","formId":"65a1b2c3d4e5f6a7b8c9d0e1"}]`)})
	assert.Equal(t, []string{"form", "hero", "text", "cta"}, blockTypes(elements(doc, "main")[0]))
}

func TestResponsiveSettingsAreClasses(t *testing.T) {
	_, doc := renderPage(t, Input{Blocks: valid(t, `[{"type":"hero","headline":"h","responsiveSettings":{
		"mobile":{"visible":false},"tablet":{"alignment":"center","spacing":"small"},"desktop":{"visible":true,"spacing":"large"}}}]`)})
	section := elements(doc, "section")[0]
	assert.Equal(t, "block block-hero hide-mobile align-tablet-center space-tablet-small space-desktop-large", attr(section, "class"))
	css := string(CSS())
	for _, class := range strings.Fields(attr(section, "class")) {
		assert.Contains(t, css, "."+class+"{", class)
	}
}

func TestStoredValuesOutsideTheEnumsMakeNoClass(t *testing.T) {
	blocks := []any{store.Doc{"type": "hero", "headline": "h",
		"responsiveSettings": store.Doc{"mobile": store.Doc{"alignment": `x" onclick="y`, "spacing": "huge"}}}}
	_, doc := renderPage(t, Input{Blocks: blocks})
	assert.Equal(t, "block block-hero", attr(elements(doc, "section")[0], "class"))
}

func TestUnsafeURLsAreDropped(t *testing.T) {
	blocks := []any{
		store.Doc{"type": "cta", "label": "bad", "url": "javascript:alert(1)"},
		store.Doc{"type": "cta", "label": "tab", "url": "java\tscript:alert(1)"},
		store.Doc{"type": "cta", "label": "relative", "url": "/pricing#plans"},
		store.Doc{"type": "image", "url": "data:image/png;base64,AAAA", "alt": "x"},
		store.Doc{"type": "hero", "headline": "h", "heroImage": "vbscript:x"},
		store.Doc{"type": "embed", "url": "https://evil.test/embed/x"},
	}
	_, doc := renderPage(t, Input{Blocks: blocks})
	links := elements(doc, "a")
	require.Len(t, links, 3)
	assert.Equal(t, []string{"", "", "/pricing#plans"}, []string{attr(links[0], "href"), attr(links[1], "href"), attr(links[2], "href")})
	assert.Empty(t, elements(doc, "img"))
	assert.Empty(t, elements(doc, "iframe"))
	assert.Equal(t, []string{"cta", "cta", "cta", "hero"}, blockTypes(elements(doc, "main")[0]))
}

func TestHeadingIDsAreUniqueOnThePage(t *testing.T) {
	out, doc := renderPage(t, Input{Blocks: valid(t, `[
		{"type":"text","body":"## Intro\n\n## Intro\n\n[up](#intro)"},
		{"type":"text","body":"## Intro\n\n[mine](#intro) [other](#setup)\n\n## Setup"},
		{"type":"accordion","items":[{"question":"q","answer":"## Intro"}]}]`)})
	var ids []string
	for _, n := range elements(doc, "") {
		if id := attr(n, "id"); id != "" {
			ids = append(ids, id)
		}
	}
	assert.Equal(t, []string{"intro", "intro-2", "intro-3", "setup", "intro-4"}, ids)
	assert.Equal(t, []render.Heading{{Level: 2, ID: "intro", Text: "Intro"}, {Level: 2, ID: "intro-2", Text: "Intro"},
		{Level: 2, ID: "intro-3", Text: "Intro"}, {Level: 2, ID: "setup", Text: "Setup"}}, out.TOC, "accordion answers are not in the TOC")
	var hrefs []string
	for _, a := range elements(doc, "a") {
		hrefs = append(hrefs, attr(a, "href"))
	}
	assert.Equal(t, []string{"#intro", "#intro-3", "#setup"}, hrefs, "a renamed heading's links follow it")
}

func TestMarkdownGetsGlossaryAndLinks(t *testing.T) {
	glossary := []render.Term{{ID: "t1", Term: "webhook", URL: "/glossary/webhook"}, {ID: "t2", Term: "unused"}}
	out, doc := renderPage(t, Input{Glossary: glossary, Links: map[string]string{"kb/ok": "https://docs.test/ok"}, Blocks: valid(t, `[
		{"type":"text","body":"A webhook calls [ok](wiki:kb/ok) and [gone](wiki:kb/gone)."},
		{"type":"accordion","items":[{"question":"q","answer":"[also](wiki:kb/missing)"}]}]`)})
	assert.Equal(t, []string{"t1"}, out.Terms)
	assert.Equal(t, []string{"kb/gone", "kb/missing"}, out.BrokenLinks)
	var hrefs []string
	for _, a := range elements(doc, "a") {
		hrefs = append(hrefs, attr(a, "href"))
	}
	assert.Equal(t, []string{"/glossary/webhook", "https://docs.test/ok"}, hrefs)
}

func TestLocale(t *testing.T) {
	for locale, want := range map[string]string{"de-CH": "de-CH", "": "en", `"><script>`: "en"} {
		_, doc := renderPage(t, Input{Locale: locale})
		assert.Equal(t, want, attr(elements(doc, "html")[0], "lang"))
	}
}

// TestPriceInTheLocalesFormat: a price reads as the page's locale writes
// money: the symbol's place, the separators, no decimals for a whole
// amount (issue 30, item 11).
func TestPriceInTheLocalesFormat(t *testing.T) {
	for _, tc := range []struct{ locale, price, currency, want string }{
		{"de-CH", "1234.5", "EUR", "€\u00a01'234.50 pro Monat"},
		{"de", "29", "EUR", "29\u00a0€ pro Monat"},
		{"de", "9.9", "EUR", "9,90\u00a0€ pro Monat"},
		{"en", "9.9", "EUR", "€9.90 per month"},
		{"en", "1234", "USD", "$1,234 per month"},
		{"fr", "1234.5", "EUR", "1\u202f234,50\u00a0€ par mois"},
		{"", "5", "GBP", "£5 per month"},
	} {
		_, doc := renderPage(t, Input{Locale: tc.locale, Blocks: valid(t, `[{"type":"pricing","plans":[{"name":"P","price":`+tc.price+`,"currency":"`+tc.currency+`","period":"month"}]}]`)})
		assert.Equal(t, tc.want, textOf(elements(doc, "p")[0]), "%s %s %s", tc.locale, tc.price, tc.currency)
	}
}

func TestUnsafeStylesheetIsLeftOut(t *testing.T) {
	_, doc := renderPage(t, Input{SiteCSS: "javascript:x"})
	assert.Empty(t, elements(doc, "link"))
}

func TestNotFound(t *testing.T) {
	doc := parse(t, NotFound("fr"))
	assert.Equal(t, "fr", attr(elements(doc, "html")[0], "lang"))
	assert.Equal(t, "Page introuvable", textOf(elements(doc, "h1")[0]))
	assert.Equal(t, "/", attr(elements(doc, "a")[0], "href"))
	assertHarmless(t, doc, "404")
	assert.Equal(t, "Page not found", textOf(elements(parse(t, NotFound("<x>")), "title")[0]))
}

func TestCSSIsACopy(t *testing.T) {
	css := CSS()
	require.NotEmpty(t, css)
	css[0] = 'X'
	assert.NotEqual(t, css[0], CSS()[0])
	assert.Less(t, len(css), 8<<10, "the stylesheet stays small")
}
