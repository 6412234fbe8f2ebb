package render

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxTitle is the most characters of a definition a link's title holds.
const maxTitle = 200

// linker is step 3's state while it walks the tree.
type linker struct {
	x      *index
	linked map[string]bool // entries linked in the current section
	used   map[string]bool // entries linked anywhere
	titles map[string]string
}

// linkTerms is step 3: it links the first mention of each glossary entry in
// each section and returns the IDs of the entries it linked.
func linkTerms(root *html.Node, x *index) []string {
	if len(x.entries) == 0 {
		return nil
	}
	l := &linker{x: x, linked: map[string]bool{}, used: map[string]bool{}, titles: map[string]string{}}
	walk(root, l.visit)
	return sortedKeys(l.used)
}

// visit starts a section at each heading and skips the places a link does
// not belong: code, pre, links and headings.
func (l *linker) visit(n *html.Node) bool {
	if n.Type == html.TextNode {
		l.linkText(n)
		return false
	}
	if isHeading(n) {
		clear(l.linked)
		return false
	}
	switch n.DataAtom {
	case atom.Code, atom.Pre, atom.A, atom.Script, atom.Style:
		return false
	}
	return true
}

// linkText replaces a text node by text and links when terms occur in it.
func (l *linker) linkText(n *html.Node) {
	s := n.Data
	ws := words(s)
	done := 0 // bytes of s already moved before n
	for i := 0; i < len(ws); {
		t, k := l.x.match(s, ws[i:])
		if k == 0 {
			i++
			continue
		}
		if l.usable(t) {
			start, end := ws[i].start, ws[i+k-1].end
			insertText(n, s[done:start])
			n.Parent.InsertBefore(l.link(t, s[start:end]), n)
			done = end
		}
		i += k
	}
	if done > 0 {
		insertText(n, s[done:])
		n.Parent.RemoveChild(n)
	}
}

// usable tells whether t may be linked here, and marks it linked if so.
func (l *linker) usable(t *Term) bool {
	if l.linked[t.ID] || !safeURL(t.URL) {
		return false
	}
	l.linked[t.ID], l.used[t.ID] = true, true
	return true
}

// link builds the glossary link around the text as written.
func (l *linker) link(t *Term, text string) *html.Node {
	a := element("a", "class", "glossary-term", "href", t.URL,
		"title", l.title(t), "data-term", t.ID)
	a.AppendChild(&html.Node{Type: html.TextNode, Data: text})
	return a
}

// title is t's definition as plain text, cut to maxTitle characters.
func (l *linker) title(t *Term) string {
	if s, ok := l.titles[t.ID]; ok {
		return s
	}
	s := truncate(plainText(t.Definition), maxTitle)
	l.titles[t.ID] = s
	return s
}

// insertText puts a text node holding s before n, unless s is empty.
func insertText(n *html.Node, s string) {
	if s != "" {
		n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: s}, n)
	}
}

// truncate cuts s to at most max characters, ending cut text with "…".
func truncate(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return strings.TrimSpace(string(r[:max-1])) + "…"
}

// safeURL tells a URL the platform may put in an href it builds: relative,
// http or https. Glossary URLs and cross-link targets come from the
// platform, but an href is checked wherever it is made.
func safeURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || s == "" {
		return false
	}
	return u.Scheme == "" || u.Scheme == "http" || u.Scheme == "https"
}
