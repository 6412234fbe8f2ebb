package blocks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/resource"

	"platform/kernel/render/xsstest"
)

func isURL(f *resource.Field) bool { return f.Format == resource.FURL }

// poisoned is every type's block (and the snippet's) with every text and
// URL field holding v, plus one good embed whose title holds it.
func poisoned(t *testing.T, v string) Input {
	set := func(blocks []any) []any {
		texts := Texts(blocks)
		for i := range texts {
			texts[i].Value = v
		}
		blocks = SetTexts(blocks, texts)
		eachString(blocks, isURL, func(_ string, _ *resource.Field, _ string, set func(string)) { set(v) })
		return blocks
	}
	blocks := append(set(valid(t, everyType)), map[string]any{"type": "embed", "url": "https://youtu.be/dQw4w9WgXcQ", "title": v})
	return Input{Title: v, Description: v, Locale: v, SiteCSS: v, Blocks: blocks,
		Snippets: map[string][]any{snippetID: set(snippets(t)[snippetID])}}
}

func TestXSSCorpusThroughEveryField(t *testing.T) {
	vectors := xsstest.Vectors()
	require.GreaterOrEqual(t, len(vectors), 60)
	for _, v := range vectors {
		in := poisoned(t, v)
		require.Len(t, Texts(in.Blocks), 26, "every text field holds the vector")
		out, doc := renderPage(t, in)
		assertHarmless(t, doc, v)
		assert.Len(t, elements(doc, "iframe"), 1, "only the good embed's player: %s", v)
		assert.NotContains(t, strings.ToLower(out.HTML), "<script", v)
	}
}
