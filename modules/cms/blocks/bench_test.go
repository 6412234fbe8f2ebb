package blocks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/render"
)

// page40 is a page of 40 blocks cycling through every type, its text
// blocks of about 300 words with headings, a list and glossary terms, and
// a glossary of 20 entries.
func page40(t testing.TB) Input {
	all := valid(t, everyType)
	body := longBody()
	var blocks []any
	for i := range 40 {
		b := deepCopy(all[i%len(all)]).(map[string]any)
		b["order"] = int64(i)
		if b[tag] == TypeText {
			b["body"] = body
		}
		blocks = append(blocks, b)
	}
	var terms []render.Term
	for i := range 20 {
		terms = append(terms, render.Term{ID: fmt.Sprintf("t%02d", i), Term: fmt.Sprintf("term%d", i), URL: fmt.Sprintf("/glossary/t%d", i)})
	}
	return Input{Title: "Forty", Locale: "en", Blocks: blocks, Snippets: snippets(t), Glossary: terms, SiteCSS: "/site.css"}
}

func longBody() string {
	var b strings.Builder
	for s := range 3 {
		fmt.Fprintf(&b, "## Section %d\n\n", s)
		for p := range 3 {
			fmt.Fprintf(&b, "Here **term%d** meets term%d in a sentence of plain prose about things, and other words follow to fill the line. ", s*3+p, p)
			b.WriteString("A second sentence carries on with more of the same ordinary text.\n\n")
		}
		b.WriteString("- one\n- two\n- three\n\n")
	}
	return b.String()
}

func TestRender40Blocks(t *testing.T) {
	out, doc := renderPage(t, page40(t))
	assert.Len(t, blockTypes(elements(doc, "main")[0]), 40)
	assert.Len(t, out.TOC, 4*3, "four text blocks of three sections")
	assert.Len(t, out.Terms, 9)
	ids := map[string]bool{}
	for _, n := range elements(doc, "") {
		if id := attr(n, "id"); id != "" {
			require.False(t, ids[id], id)
			ids[id] = true
		}
	}
	assertHarmless(t, doc, "40 blocks")
}

func BenchmarkRender40Blocks(b *testing.B) {
	in := page40(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHash40Blocks(b *testing.B) {
	in := page40(b)
	b.ReportAllocs()
	for b.Loop() {
		Hash(in)
	}
}
