package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/render/xsstest"
)

// fuzzSeeds are bodies that reach every step; the XSS corpus is added too.
var fuzzSeeds = []string{
	"# Title\n\nThe API and the service level agreement.\n\n## Next\n\nAPI, SLA",
	"```mermaid\ngraph TD; A-->B\n```\n\n```dot\ndigraph{a->b}\n```",
	"[a](wiki:kb/setup#x) [b](wiki:kb/gone) [c](wiki:) ![i](wiki:kb/setup)",
	"| a | b |\n|---|:-:|\n| API | `x` |\n\n- [x] done\n- [ ] todo",
	"<h2 id=x>Ü</h2><h2>Ü</h2><pre><code class=\"language-d2\">a -> b</code></pre>",
	"> > > nested\n> - list\n>   1. item **Überblick**",
	"AP&#73; wiki&#58;kb/install [x](wiki:kb\\_a/b) <wiki:KB/x>",
	"<a href=\"wiki:kb/install\"><a href=\"wiki:kb/setup\">x</a></a>",
}

// FuzzRender checks that Render never panics, never lets anything
// runnable through, and keeps the promises its cheap helpers make:
// CrossLinks lists every target Render resolves and Matching every entry
// Render links.
func FuzzRender(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	for _, v := range xsstest.Vectors() {
		f.Add(v, false)
	}
	f.Fuzz(func(t *testing.T, body string, asHTML bool) {
		format := Markdown
		if asHTML {
			format = HTML
		}
		in := Input{Body: body, Format: format, Glossary: glossary, Links: resolveAll(body, format)}
		_ = Hash(in)
		out, err := Render(in)
		if err != nil {
			require.ErrorIs(t, err, ErrTooDeep)
			return
		}
		assertHarmless(t, out.HTML, body)
		for _, b := range out.BrokenLinks {
			assert.True(t, strings.HasPrefix(b, "wiki:"), "CrossLinks missed %q", b)
		}
		assert.Subset(t, termIDs(Matching(body, glossary)), out.Terms)
	})
}

// resolveAll resolves every target CrossLinks finds.
func resolveAll(body, format string) map[string]string {
	links := map[string]string{}
	for _, target := range CrossLinks(body, format) {
		links[target] = "/r/" + target
	}
	return links
}

func termIDs(terms []Term) []string {
	ids := []string{}
	for _, t := range terms {
		ids = append(ids, t.ID)
	}
	return ids
}
