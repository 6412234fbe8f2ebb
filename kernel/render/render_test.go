package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// md renders a Markdown body with nothing to link against.
func md(t *testing.T, body string) Output {
	t.Helper()
	out, err := Render(Input{Body: body, Format: Markdown})
	require.NoError(t, err)
	return out
}

func TestRenderMarkdownGFM(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"paragraph", "Hello *world*", "<p>Hello <em>world</em></p>"},
		{"strikethrough", "~~gone~~", "<del>gone</del>"},
		{"autolink", "see https://example.com now", `<a href="https://example.com" rel="nofollow noopener">https://example.com</a>`},
		{"www autolink", "see www.example.com", `<a href="http://www.example.com" rel="nofollow noopener">www.example.com</a>`},
		{"task list", "- [x] done\n- [ ] todo", `<li><input checked="" disabled="" type="checkbox"/> done</li>`},
		{"open task", "- [ ] todo", `<li><input disabled="" type="checkbox"/> todo</li>`},
		{"table", "| a | b |\n|:-|-:|\n| 1 | 2 |", `<th align="left">a</th>`},
		{"table cell", "| a | b |\n|:-|-:|\n| 1 | 2 |", `<td align="right">2</td>`},
		{"code", "```go\nx := 1 < 2\n```", `<pre><code class="language-go">x := 1 &lt; 2`},
		{"inline code", "`a<b`", "<code>a&lt;b</code>"},
		{"relative link", "[home](/kb)", `<a href="/kb">home</a>`},
		{"mailto", "[mail](mailto:a@b.test)", `<a href="mailto:a@b.test">mail</a>`},
		{"image", "![alt](https://img.test/a.png)", `<img src="https://img.test/a.png" alt="alt"/>`},
		{"ordered list", "3. three\n4. four", `<ol start="3">`},
		{"raw html kept when safe", "<kbd>Ctrl</kbd>", "<kbd>Ctrl</kbd>"},
		{"blockquote", "> quoted", "<blockquote>\n<p>quoted</p>\n</blockquote>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Contains(t, md(t, c.body).HTML, c.want)
		})
	}
}

func TestRenderDropsWhatIsNotAllowed(t *testing.T) {
	for _, c := range []struct{ name, body, gone string }{
		{"script", "a<script>alert(1)</script>", "alert"},
		{"style attribute", `<p style="color:red">x</p>`, "style"},
		{"author id", `<p id="main">x</p>`, "main"},
		{"class on p", `<p class="evil">x</p>`, "evil"},
		{"form", `<form action="/x"><input type="text" name="q"></form>`, "input"},
		{"text input", `<input type="text">`, "input"},
		{"data image", `![x](data:image/png;base64,AAAA)`, "data:"},
		{"javascript link", `[x](javascript:alert(1))`, "javascript"},
		{"iframe", `<iframe src="https://evil.test"></iframe>`, "iframe"},
		{"event handler", `<b onclick="x()">b</b>`, "onclick"},
		{"author rel", `<a href="/x" rel="me">x</a>`, "rel"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.NotContains(t, md(t, c.body).HTML, c.gone)
		})
	}
}

func TestRenderHTMLFormat(t *testing.T) {
	out, err := Render(Input{Body: `<h2>Intro</h2><p>*not markdown* <a href="wiki:kb/a">A</a></p>`,
		Format: HTML, Links: map[string]string{"kb/a": "/kb/a"}})
	require.NoError(t, err)
	assert.Equal(t, `<h2 id="intro">Intro</h2><p>*not markdown* <a href="/kb/a">A</a></p>`, out.HTML)
	assert.Equal(t, []Heading{{Level: 2, ID: "intro", Text: "Intro"}}, out.TOC)
}

func TestRenderLimits(t *testing.T) {
	_, err := Render(Input{Body: strings.Repeat("a", MaxBody+1), Format: Markdown})
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = Render(Input{Body: strings.Repeat("a", MaxBody), Format: Markdown})
	require.NoError(t, err)
	_, err = Render(Input{Body: strings.Repeat("<div>", 1000), Format: HTML})
	require.ErrorIs(t, err, ErrTooDeep)
	_, err = Render(Input{Body: strings.Repeat(">", 1000) + " deep", Format: Markdown})
	require.ErrorIs(t, err, ErrTooDeep)
	_, err = Render(Input{Body: "x", Format: "rst"})
	require.ErrorIs(t, err, ErrFormat)
}

func TestRenderEmpty(t *testing.T) {
	out := md(t, "")
	assert.Equal(t, Output{}, out)
}
