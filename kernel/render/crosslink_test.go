package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var links = map[string]string{
	"kb/setup":   "https://docs.test/kb/setup",
	"kb/install": "/kb/install",
	"ops/run":    "javascript:alert(1)",
}

func TestCrossLinks(t *testing.T) {
	for _, c := range []struct {
		name, body, html, broken string
	}{
		{"resolved", "[Setup](wiki:kb/setup)", `<p><a href="https://docs.test/kb/setup">Setup</a></p>`, ""},
		{"fragment", "[Step](wiki:kb/install#step-2)", `<p><a href="/kb/install#step-2">Step</a></p>`, ""},
		{"scheme case", "[I](WIKI:kb/install)", `<p><a href="/kb/install">I</a></p>`, ""},
		{"autolink", "<wiki:kb/install>", `<p><a href="/kb/install">wiki:kb/install</a></p>`, ""},
		{"reference", "[I][r]\n\n[r]: wiki:kb/install", `<p><a href="/kb/install">I</a></p>`, ""},
		{"entity", "[I](wiki&#58;kb/install)", `<p><a href="/kb/install">I</a></p>`, ""},
		{"raw html", `<a href="wiki:kb/install">I</a>`, `<p><a href="/kb/install">I</a></p>`, ""},
		{"dangling", "see [the *guide*](wiki:kb/gone) now", "<p>see the <em>guide</em> now</p>", "kb/gone"},
		{"unsafe target", "[R](wiki:ops/run)", "<p>R</p>", "ops/run"},
		{"no slug", "[K](wiki:kb)", "<p>K</p>", "wiki:kb"},
		{"too deep", "[K](wiki:kb/a/b)", "<p>K</p>", "wiki:kb/a/b"},
		{"upper case", "[K](wiki:KB/Setup)", "<p>K</p>", "wiki:KB/Setup"},
		{"empty", "[K](wiki:)", "<p>K</p>", "wiki:"},
		{"image", "![i](wiki:kb/setup)", `<p><img alt="i"/></p>`, ""},
		{"image in dangling link", "[![i](wiki:kb/setup)](wiki:kb/gone)", `<p><img alt="i"/></p>`, "kb/gone"},
		{"external untouched", "[x](https://x.test/wiki:kb/a)", `<p><a href="https://x.test/wiki:kb/a" rel="nofollow noopener">x</a></p>`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Render(Input{Body: c.body, Format: Markdown, Links: links})
			require.NoError(t, err)
			assert.Equal(t, c.html, trimNL(out.HTML))
			if c.broken == "" {
				assert.Empty(t, out.BrokenLinks)
			} else {
				assert.Equal(t, []string{c.broken}, out.BrokenLinks)
			}
		})
	}
}

func TestBrokenLinksSortedUnique(t *testing.T) {
	out := md(t, "[a](wiki:kb/z) [b](wiki:kb/a) [c](wiki:kb/z) [d](wiki:x)")
	assert.Equal(t, []string{"kb/a", "kb/z", "wiki:x"}, out.BrokenLinks)
}

func TestCrossLinksLists(t *testing.T) {
	body := "[a](wiki:kb/z#f) [b](wiki:kb/a) [c](wiki:kb/z) [d](wiki:x) [e](wiki&#x3a;kb/e)" +
		` [f](wiki:kb\_f/g) <a href="WIKI:kb/h">h</a>`
	assert.Equal(t, []string{"kb/a", "kb/e", "kb/h", "kb/z", "kb_f/g"}, CrossLinks(body, Markdown))
	assert.Equal(t, []string{"kb/a"}, CrossLinks(`<a href="wiki:kb/a">a</a>`, HTML))
	assert.Empty(t, CrossLinks("no links", Markdown))
}

func trimNL(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}
