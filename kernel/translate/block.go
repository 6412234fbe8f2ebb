package translate

import (
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// block is a leaf block of prose: its source range and what is sent.
type block struct {
	start, stop int    // the source replaced by the translation
	html        string // sent for translation
	keeps       []keep // what data-i="N" stands for
	newline     string // a hard line break's new line and its container prefix; "" where none may be
	cell        bool   // a table cell: a "|" in the text must be escaped
}

func newBlock(n ast.Node, src []byte) (block, bool) {
	lines := n.Lines()
	if lines.Len() == 0 {
		return block{}, false
	}
	e := &encoder{src: src}
	e.children(n)
	if !e.prose {
		return block{}, false // nothing a translator could change
	}
	start, stop := trim(src, lines.At(0).Start, lines.At(lines.Len()-1).Stop)
	b := block{start: start, stop: stop, html: e.b.String(), keeps: e.keeps}
	switch n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		b.newline = "\n" + continuation(src, n)
	case *east.TableCell:
		b.cell = true
	}
	return b, true
}

// trim narrows [start, stop) to its non-blank part.
func trim(src []byte, start, stop int) (int, int) {
	for stop > start && isBlank(src[stop-1]) {
		stop--
	}
	for start < stop && isBlank(src[start]) {
		start++
	}
	return start, stop
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// continuation is what starts a further line of n's block: the source's
// own second-line prefix ("> ", "  "), or the first line's with list
// markers blanked ("- " becomes "  ", "> 1. " becomes ">    "), so a new
// line continues the block rather than starting a list item.
func continuation(src []byte, n ast.Node) string {
	lines := n.Lines()
	if lines.Len() > 1 {
		return string(src[lineStart(src, lines.At(1).Start):lines.At(1).Start])
	}
	first := lines.At(0).Start
	prefix := []byte(string(src[lineStart(src, first):first]))
	for i, c := range prefix {
		if c != '>' && c != '\t' {
			prefix[i] = ' '
		}
	}
	return string(prefix)
}

func lineStart(src []byte, pos int) int {
	for pos > 0 && src[pos-1] != '\n' {
		pos--
	}
	return pos
}
