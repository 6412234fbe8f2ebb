package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDiagrams(t *testing.T) {
	for _, c := range []struct{ lang, want string }{
		{"mermaid", `<pre class="mermaid">graph TD; A--&gt;B&lt;script&gt;alert(1)&lt;/script&gt;`},
		{"Mermaid", `<pre class="mermaid">`},
		{"plantuml", `<pre class="plantuml">`},
		{"graphviz", `<pre class="graphviz">`},
		{"dot", `<pre class="graphviz">`},
		{"d2", `<pre class="d2">`},
		{"python", `<pre><code class="language-python">graph TD;`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			out := md(t, "```"+c.lang+"\ngraph TD; A-->B<script>alert(1)</script>\n```")
			assert.Contains(t, out.HTML, c.want)
			assert.NotContains(t, out.HTML, "<script")
		})
	}
}

func TestDiagramsKeepTextAndSkipGlossary(t *testing.T) {
	out, err := Render(Input{Body: "<pre><code class=\"language-mermaid\">API &amp; <b>x</b></code></pre>",
		Format: HTML, Glossary: glossary})
	if assert.NoError(t, err) {
		assert.Equal(t, `<pre class="mermaid">API &amp; x</pre>`, out.HTML)
		assert.Empty(t, out.Terms)
	}
}

func TestDiagramClassOnlyFromFences(t *testing.T) {
	out := md(t, `<pre class="mermaid">x</pre>`)
	assert.Equal(t, "<pre>x</pre>", out.HTML)
}
