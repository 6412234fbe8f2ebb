package translate

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// codeSpan is a code span written anew from its content, with a fence
// longer than any backtick run in it (goldmark keeps no delimiters).
func codeSpan(n *ast.CodeSpan, src []byte) string {
	var content strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			content.Write(t.Segment.Value(src))
		}
	}
	code := strings.ReplaceAll(content.String(), "\n", " ") // a code span's line ending is a space
	fence := strings.Repeat("`", longestRun(code, '`')+1)
	if strings.HasPrefix(code, "`") || strings.HasSuffix(code, "`") || (strings.HasPrefix(code, " ") && strings.HasSuffix(code, " ")) {
		code = " " + code + " "
	}
	return fence + code + fence
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := range len(s) {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// autoLink is an autolink as written: goldmark hands out its label as a
// slice of src, so its offset shows whether <> surrounded it (a bare
// https://... or www.... found by the linkify extension has none).
func autoLink(n *ast.AutoLink, src []byte) string {
	label := n.Label(src)
	start := cap(src) - cap(label)
	stop := start + len(label)
	if start < 0 || stop > len(src) {
		return "<" + string(label) + ">" // not a slice of src after all
	}
	if start > 0 && stop < len(src) && src[start-1] == '<' && src[stop] == '>' {
		return string(src[start-1 : stop+1])
	}
	return string(label)
}

// linkTail is what follows a link's or image's text: its destination and
// title, as written (goldmark keeps their escapes).
func linkTail(k keep) string {
	dest := k.dest
	if dest == "" || strings.ContainsAny(dest, " <>") {
		dest = "<" + dest + ">"
	}
	if k.title == "" {
		return "(" + dest + ")"
	}
	switch {
	case !strings.Contains(k.title, `"`):
		return "(" + dest + ` "` + k.title + `")`
	case !strings.Contains(k.title, "'"):
		return "(" + dest + " '" + k.title + "')"
	}
	return "(" + dest + " (" + k.title + "))"
}
