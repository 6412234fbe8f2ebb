package newsletter

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PlainText is the text part of a mail: the HTML body as a reader of it
// sees it, in text. Blocks (paragraphs, headings, list items, table rows)
// go on lines of their own, paragraphs apart by a blank line; a link
// shows its address after its words; scripts, styles and images without
// alt text leave nothing. jaytaylor/html2text would do the same but is
// unmaintained (no release, no module requirements, it needs a pre-1.0
// tablewriter pinned), so this walks golang.org/x/net/html's tree.
func PlainText(body string) string {
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil { // html.Parse fails only on a failing reader
		return body
	}
	w := &textWriter{}
	w.node(doc)
	return strings.TrimSpace(w.b.String())
}

// paragraphs are the blocks set apart by a blank line; lines are those
// that only start a new line.
var (
	paragraphs = map[atom.Atom]bool{atom.P: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
		atom.H5: true, atom.H6: true, atom.Ul: true, atom.Ol: true, atom.Table: true, atom.Blockquote: true,
		atom.Pre: true, atom.Hr: true, atom.Dl: true, atom.Figure: true, atom.Address: true}
	lines = map[atom.Atom]bool{atom.Div: true, atom.Li: true, atom.Tr: true, atom.Dt: true, atom.Dd: true,
		atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Main: true,
		atom.Nav: true, atom.Aside: true, atom.Form: true, atom.Fieldset: true, atom.Figcaption: true,
		atom.Center: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true}
	skipped = map[atom.Atom]bool{atom.Head: true, atom.Script: true, atom.Style: true, atom.Template: true,
		atom.Noscript: true, atom.Iframe: true, atom.Object: true, atom.Svg: true}
)

// textWriter builds the text: breaks wanted before the next word are
// kept pending, so blocks in a row give one blank line, not several.
type textWriter struct {
	b      strings.Builder
	breaks int  // line breaks owed before the next text
	space  bool // a space owed before the next word on this line
	pre    int  // inside <pre>: whitespace kept
}

func (w *textWriter) lineBreak(n int) {
	w.breaks = max(w.breaks, n)
	w.space = false
}

// write adds s as it is, after the breaks or space owed.
func (w *textWriter) write(s string) {
	if w.b.Len() > 0 {
		if w.breaks > 0 {
			w.b.WriteString(strings.Repeat("\n", w.breaks))
		} else if w.space {
			w.b.WriteByte(' ')
		}
	}
	w.breaks, w.space = 0, false
	w.b.WriteString(s)
}

// text adds a text node: runs of whitespace become one space, as a
// browser shows them.
func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.write(s)
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		w.space = w.space || s != ""
		return
	}
	if isSpace(s[0]) {
		w.space = true
	}
	w.write(strings.Join(words, " "))
	w.space = isSpace(s[len(s)-1])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	default:
		w.children(n)
		return
	}
	switch a := n.DataAtom; {
	case skipped[a]:
	case a == atom.Br:
		w.lineBreak(1)
		w.write("")
	case a == atom.Img:
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			w.text(" " + alt + " ")
		}
	case a == atom.A:
		w.link(n)
	case a == atom.Hr:
		w.lineBreak(2)
		w.write("----")
		w.lineBreak(2)
	case a == atom.Td || a == atom.Th:
		w.space = w.b.Len() > 0 && w.breaks == 0
		w.children(n)
		w.space = true
	case paragraphs[a] || lines[a]:
		w.block(n, a)
	default:
		w.children(n)
	}
}

// block puts an element on lines of its own; a list item starts with a
// dash, or its number in an ordered list.
func (w *textWriter) block(n *html.Node, a atom.Atom) {
	gap := 1
	if paragraphs[a] {
		gap = 2
	}
	if a == atom.Ul || a == atom.Ol {
		if parent := n.Parent; parent != nil && parent.DataAtom == atom.Li {
			gap = 1 // a nested list goes on the next line
		}
	}
	w.lineBreak(gap)
	if a == atom.Li {
		w.write(bullet(n))
		w.space = true
	}
	if a == atom.Pre {
		w.pre++
		defer func() { w.pre-- }()
	}
	w.children(n)
	w.lineBreak(gap)
}

func bullet(li *html.Node) string {
	if li.Parent == nil || li.Parent.DataAtom != atom.Ol {
		return "-"
	}
	i := 1
	for s := li.PrevSibling; s != nil; s = s.PrevSibling {
		if s.Type == html.ElementNode && s.DataAtom == atom.Li {
			i++
		}
	}
	return strconv.Itoa(i) + "."
}

// link writes a link's words, then its address in brackets unless the
// words are the address already; mailto: shows the bare address.
func (w *textWriter) link(n *html.Node) {
	start := w.b.Len()
	w.children(n)
	href := strings.TrimSpace(attr(n, "href"))
	lower := strings.ToLower(href)
	switch {
	case strings.HasPrefix(lower, "mailto:"):
		href = href[len("mailto:"):]
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
	default:
		return // relative or script links mean nothing in a mail's text
	}
	words := strings.TrimSpace(w.b.String()[min(start, w.b.Len()):])
	if words == href || href == "" {
		return
	}
	if words == "" {
		w.text(" " + href + " ")
		return
	}
	trailing := w.space
	w.b.WriteString(" (" + href + ")")
	w.space = trailing
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}
