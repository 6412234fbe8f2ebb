package render

import (
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// policy is step 2's allow-list. It is built from nothing rather than from
// UGCPolicy, which allows id on every element: ids are step 5's. Everything
// not named here goes, among it script, style, iframe, object, embed, form
// elements, on* and style attributes; URLs must parse and be relative or
// http, https, mailto or wiki (step 6), so javascript:, vbscript: and data:
// never pass.
var policy = newPolicy()

var (
	languageClass = regexp.MustCompile(`^language-[A-Za-z0-9_+#.-]{1,40}$`)
	cellAlign     = regexp.MustCompile(`^(left|center|right)$`)
	number        = regexp.MustCompile(`^[0-9]{1,6}$`)
)

func newPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowURLSchemes("http", "https", "mailto", "wiki")
	p.AllowRelativeURLs(true)
	p.RequireParseableURLs(true)
	allowText(p)
	allowLinksAndMedia(p)
	allowTables(p)
	return p
}

// allowText: the blocks and phrases Markdown produces, and their kin.
func allowText(p *bluemonday.Policy) {
	p.AllowElements("p", "br", "hr", "div", "span", "h1", "h2", "h3", "h4",
		"h5", "h6", "ul", "li", "dl", "dt", "dd", "pre", "em", "strong",
		"b", "i", "u", "s", "del", "ins", "strike", "sub", "sup", "mark",
		"small", "kbd", "samp", "var", "abbr", "cite", "dfn", "section",
		"article", "aside", "figure", "figcaption", "summary", "wbr")
	p.AllowAttrs("title").Matching(bluemonday.Paragraph).Globally()
	p.AllowAttrs("lang").Matching(regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)).Globally()
	p.AllowAttrs("dir").Matching(bluemonday.Direction).Globally()
	p.AllowAttrs("class").Matching(languageClass).OnElements("code")
	p.AllowElements("code")
	p.AllowAttrs("start").Matching(number).OnElements("ol")
	p.AllowElements("ol")
	p.AllowAttrs("cite").OnElements("blockquote", "q")
	p.AllowElements("blockquote", "q")
	p.AllowAttrs("open").Matching(regexp.MustCompile(`^(|open)$`)).OnElements("details")
	p.AllowElements("details")
	p.AllowAttrs("datetime").Matching(bluemonday.ISO8601).OnElements("time")
	// Task lists; secureLinks removes any input that is not a checkbox.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^(|checked|disabled)$`)).OnElements("input")
}

// allowLinksAndMedia: links and images (no data: images).
func allowLinksAndMedia(p *bluemonday.Policy) {
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("src").OnElements("img")
	p.AllowAttrs("alt").Matching(bluemonday.Paragraph).OnElements("img")
	p.AllowAttrs("width", "height").Matching(bluemonday.NumberOrPercent).OnElements("img")
}

// allowTables: GFM tables and their HTML kin.
func allowTables(p *bluemonday.Policy) {
	p.AllowElements("table", "thead", "tbody", "tfoot", "tr", "caption")
	p.AllowAttrs("align").Matching(cellAlign).OnElements("th", "td")
	p.AllowAttrs("colspan", "rowspan").Matching(number).OnElements("th", "td")
	p.AllowElements("th", "td")
}

// secureLinks finishes step 2 on the tree: links leaving the platform get
// rel="nofollow noopener" (authors' links are not the platform's
// endorsement, and a linked page gets no handle on ours); they open in the
// same tab, which is the reader's choice to change. Inputs are left only as
// disabled checkboxes, as task lists render them.
func secureLinks(root *html.Node) {
	walk(root, func(n *html.Node) bool {
		switch {
		case n.DataAtom == atom.A && isExternal(n):
			setAttr(n, "rel", "nofollow noopener")
		case n.DataAtom == atom.Input:
			secureInput(n)
		}
		return true
	})
}

// isExternal tells a link with an absolute http(s) URL.
func isExternal(a *html.Node) bool {
	href, _ := attr(a, "href")
	href = strings.ToLower(strings.TrimSpace(href))
	return strings.HasPrefix(href, "http:") || strings.HasPrefix(href, "https:") || strings.HasPrefix(href, "//")
}

// secureInput removes an input that is not a checkbox, and disables one
// that is: a page holds no form fields.
func secureInput(n *html.Node) {
	if t, _ := attr(n, "type"); t != "checkbox" {
		n.Parent.RemoveChild(n)
		return
	}
	setAttr(n, "disabled", "")
}
