package translate

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// keep is what a data-i element stands for.
type keep struct {
	kind        byte   // 'k' kept source, 'a' link, 'i' image
	raw         string // 'k': the Markdown written back as is
	dest, title string // 'a', 'i'
}

// encoder writes a block's inlines as the HTML sent for translation.
type encoder struct {
	src   []byte
	b     strings.Builder
	keeps []keep
	prose bool            // some text to translate was written
	run   strings.Builder // adjacent text nodes: goldmark splits "wiki:a_b" at "_"
}

// wikiRef is a cross-link to a wiki page written as plain text
// ("see wiki:Onboarding"): the page name is no prose.
var wikiRef = regexp.MustCompile(`wiki:[^\s<>()\[\]]+`)

func (e *encoder) children(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			e.text(t)
			continue
		}
		e.flush()
		e.node(c)
	}
	e.flush()
}

func (e *encoder) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.String:
		e.prose1(string(n.Value))
	case *ast.Emphasis:
		e.wrap(map[int]string{1: "em", 2: "strong"}[n.Level], n)
	case *east.Strikethrough:
		e.wrap("del", n)
	case *ast.Link:
		e.indexed("a", keep{kind: 'a', dest: string(n.Destination), title: string(n.Title)}, n)
	case *ast.Image:
		e.indexed("span", keep{kind: 'i', dest: string(n.Destination), title: string(n.Title)}, n)
	default:
		e.inert(n)
	}
}

// inert keeps the inlines that are no prose as they are written.
func (e *encoder) inert(n ast.Node) {
	switch n := n.(type) {
	case *ast.CodeSpan:
		e.keep(codeSpan(n, e.src))
	case *ast.AutoLink:
		e.keep(autoLink(n, e.src))
	case *ast.RawHTML:
		e.keep(string(n.Segments.Value(e.src)))
	case *east.TaskCheckBox:
		e.keep(map[bool]string{true: "[x] ", false: "[ ] "}[n.IsChecked])
	default:
		e.children(n) // an inline this package does not know: its text is prose
	}
}

func (e *encoder) text(n *ast.Text) {
	e.run.Write(n.Segment.Value(e.src))
	switch {
	case n.HardLineBreak():
		e.flush()
		e.b.WriteString("<br>")
	case n.SoftLineBreak():
		e.run.WriteString(" ") // sentences span lines: the provider sees them whole
	}
}

func (e *encoder) flush() {
	e.prose1(e.run.String())
	e.run.Reset()
}

// prose1 writes raw Markdown text, its wiki: references kept.
func (e *encoder) prose1(s string) {
	for s != "" {
		loc := wikiRef.FindStringIndex(s)
		if loc == nil {
			loc = []int{len(s), len(s)}
		}
		e.escaped(s[:loc[0]])
		if loc[1] > loc[0] {
			e.keep(s[loc[0]:loc[1]])
		}
		s = s[loc[1]:]
	}
}

func (e *encoder) escaped(s string) {
	if strings.TrimSpace(s) != "" {
		e.prose = true
	}
	e.b.WriteString(htmlEscaper.Replace(s))
}

// htmlEscaper makes raw Markdown text HTML. An entity reference
// ("&copy;") means in HTML what it means in Markdown, so it is sent as
// it is; decode writes its character back.
var htmlEscaper = strings.NewReplacer("<", "&lt;", ">", "&gt;")

func (e *encoder) wrap(tag string, n ast.Node) {
	fmt.Fprintf(&e.b, "<%s>", tag)
	e.children(n)
	fmt.Fprintf(&e.b, "</%s>", tag)
}

func (e *encoder) indexed(tag string, k keep, n ast.Node) {
	fmt.Fprintf(&e.b, `<%s data-i="%d">`, tag, len(e.keeps))
	e.keeps = append(e.keeps, k)
	e.children(n)
	fmt.Fprintf(&e.b, "</%s>", tag)
}

func (e *encoder) keep(raw string) {
	fmt.Fprintf(&e.b, `<span data-i="%d" translate="no"></span>`, len(e.keeps))
	e.keeps = append(e.keeps, keep{kind: 'k', raw: raw})
}
