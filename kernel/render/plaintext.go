package render

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"
)

// plainText is the text of a Markdown definition, on one line, for a
// title attribute. It reads goldmark's syntax tree rather than rendering
// and parsing HTML, which costs a fifth of a page's render when each of
// 20 entries is linked. Raw HTML is left out.
func plainText(md string) string {
	if len(md) > MaxBody {
		return ""
	}
	src := []byte(md)
	var b strings.Builder
	doc := safeMarkdown.Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.Type() == ast.TypeBlock {
			b.WriteByte(' ')
		}
		return textOfNode(&b, n, src), nil
	})
	return collapse(html.UnescapeString(b.String()))
}

// textOfNode writes the text n itself holds and says whether to go on
// into its children.
func textOfNode(b *strings.Builder, n ast.Node, src []byte) ast.WalkStatus {
	switch n := n.(type) {
	case *ast.Text:
		b.Write(util.UnescapePunctuations(n.Segment.Value(src)))
		if n.SoftLineBreak() || n.HardLineBreak() {
			b.WriteByte(' ')
		}
	case *ast.String:
		b.Write(n.Value)
	case *ast.AutoLink:
		b.Write(n.Label(src))
	case *ast.RawHTML, *ast.HTMLBlock:
		return ast.WalkSkipChildren
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			b.Write(seg.Value(src))
		}
	}
	return ast.WalkContinue
}
