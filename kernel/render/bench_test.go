package render

import (
	"fmt"
	"strings"
	"testing"
)

// benchInput is a 2,000-word page with headings, lists, code, a table and a
// mermaid block, mentioning each of 20 glossary terms several times, with
// 10 cross-links.
func benchInput() Input {
	var terms []Term
	for i := range 20 {
		terms = append(terms, Term{ID: fmt.Sprintf("t%02d", i), Term: fmt.Sprintf("term%d", i),
			Aliases: []string{fmt.Sprintf("alias%d word", i)}, URL: fmt.Sprintf("/glossary/t%d", i),
			Definition: fmt.Sprintf("Definition of *term %d*, with [a link](/x).", i)})
	}
	links := map[string]string{}
	var b strings.Builder
	for s := range 10 {
		fmt.Fprintf(&b, "## Section %d\n\n", s)
		for p := range 3 {
			b.WriteString(paragraph(s*3 + p))
		}
		fmt.Fprintf(&b, "See [page %d](wiki:kb/page-%d).\n\n", s, s)
		links[fmt.Sprintf("kb/page-%d", s)] = fmt.Sprintf("https://docs.test/kb/page-%d", s)
		fmt.Fprintf(&b, "- item term%d one\n- item two\n- item three\n\n", s)
	}
	b.WriteString("```go\nfunc main() { fmt.Println(\"term1\") }\n```\n\n")
	b.WriteString("| name | value |\n|---|---:|\n| term2 | 1 |\n| term3 | 2 |\n\n")
	b.WriteString("```mermaid\ngraph TD; A-->B; B-->C\n```\n")
	return Input{Body: b.String(), Format: Markdown, Glossary: terms, Links: links}
}

// paragraph is about 75 words naming three of the terms.
func paragraph(n int) string {
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, "Here the **term%d** meets alias%d word in a sentence of plain prose about things. ",
			(n+i*5)%20, (n+i*7)%20)
		b.WriteString("Other words follow to fill the line with text. ")
	}
	return b.String() + "\n\n"
}

func TestBenchInput(t *testing.T) {
	in := benchInput()
	if n := len(strings.Fields(in.Body)); n < 2000 || n > 2300 {
		t.Fatalf("the page has %d words", n)
	}
	out, err := Render(in)
	if err != nil || len(out.Terms) != 20 || len(out.BrokenLinks) != 0 {
		t.Fatalf("terms %v, broken %v, err %v", out.Terms, out.BrokenLinks, err)
	}
}

func BenchmarkRender2000Words20Terms(b *testing.B) {
	in := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	in := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		Hash(in)
	}
}

// BenchmarkRender2000Terms is the same page against a glossary of 2,000
// entries, 1,980 of them unused.
func BenchmarkRender2000Terms(b *testing.B) {
	in := benchInput()
	for i := range 1980 {
		in.Glossary = append(in.Glossary, Term{ID: fmt.Sprintf("u%04d", i),
			Term: fmt.Sprintf("unused term %d", i), URL: "/g/u"})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(in); err != nil {
			b.Fatal(err)
		}
	}
}
