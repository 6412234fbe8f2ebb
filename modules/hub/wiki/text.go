package wiki

import (
	"strings"

	"golang.org/x/net/html"

	"platform/kernel/render"
)

// blocks are the elements that separate words.
var blocks = map[string]bool{"p": true, "div": true, "li": true, "br": true, "tr": true, "td": true, "th": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "pre": true, "blockquote": true, "hr": true}

// PlainText is the text of rendered HTML, for the search index: tags
// dropped, entities decoded, blocks separated by spaces.
func PlainText(h string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(h))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			if name, _ := z.TagName(); blocks[string(name)] {
				b.WriteByte(' ')
			}
		}
	}
}

// MarkdownText is the plain text of Markdown (an FAQ's answer, a
// definition); Markdown that cannot render is indexed as written.
func MarkdownText(md string) string {
	out, err := render.Render(render.Input{Body: md, Format: "markdown"})
	if err != nil {
		return md
	}
	return PlainText(out.HTML)
}
