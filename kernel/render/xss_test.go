package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"platform/kernel/render/xsstest"
)

func TestXSSCorpus(t *testing.T) {
	vectors := xsstest.Vectors()
	require.GreaterOrEqual(t, len(vectors), 60)
	for _, v := range vectors {
		for _, format := range []string{Markdown, HTML} {
			out, err := Render(Input{Body: v, Format: format, Glossary: glossary, Links: links})
			require.NoError(t, err, v)
			assertHarmless(t, out.HTML, format+": "+v)
		}
	}
}

// banned are the elements no rendered page may hold.
var banned = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Base: true, atom.Meta: true, atom.Link: true,
	atom.Form: true, atom.Frame: true, atom.Frameset: true, atom.Svg: true, atom.Math: true}

// urlAttrs are the attributes whose value a browser follows.
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true,
	"formaction": true, "xlink:href": true, "background": true, "dynsrc": true, "lowsrc": true}

// tester is what the checks need of a *testing.T, so a test can check
// the checks.
type tester interface {
	require.TestingT
	Helper()
}

// recorder is a tester that counts failures.
type recorder struct{ failures int }

func (r *recorder) Errorf(string, ...any) { r.failures++ }
func (r *recorder) FailNow()              {}
func (r *recorder) Helper()               {}

// assertHarmless parses rendered HTML as a browser would and checks that
// nothing in it runs code.
func assertHarmless(t tester, rendered, name string) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(rendered),
		&html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	require.NoError(t, err, name)
	for _, n := range nodes {
		walk(n, func(n *html.Node) bool {
			if n.Type == html.ElementNode {
				assert.False(t, banned[n.DataAtom] || n.Namespace != "", "%s: element %s", name, n.Data)
				assertAttrs(t, n, name)
			}
			return true
		})
	}
}

func assertAttrs(t tester, n *html.Node, name string) {
	t.Helper()
	for _, a := range n.Attr {
		key := strings.ToLower(a.Key)
		if a.Namespace != "" {
			key = a.Namespace + ":" + key
		}
		assert.False(t, strings.HasPrefix(key, "on"), "%s: attribute %s", name, key)
		assert.NotEqual(t, "style", key, name)
		if urlAttrs[key] {
			assert.False(t, dangerous(a.Val), "%s: %s=%q", name, key, a.Val)
		}
	}
}

// dangerous tells a URL with a scheme that runs code or carries a
// document, read the way browsers do: control characters and whitespace
// dropped, case folded.
func dangerous(u string) bool {
	u = strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, u)
	u = strings.ToLower(u)
	for _, scheme := range []string{"javascript:", "vbscript:", "data:"} {
		if strings.HasPrefix(u, scheme) {
			return true
		}
	}
	return false
}

func TestDangerous(t *testing.T) {
	assert.True(t, dangerous(" \tJaVa\nScript:alert(1)"))
	assert.True(t, dangerous("\x01data:text/html,x"))
	assert.False(t, dangerous("https://x.test/javascript:"))
}

func TestAssertHarmlessCatches(t *testing.T) {
	for _, bad := range []string{`<script>x</script>`, `<svg></svg>`, `<a href=" java	script:x">`,
		`<img src="DATA:image/png,x">`, `<b onclick="x">`, `<p style="x">`, `<form action="/x">`,
		`<meta http-equiv="refresh">`, `<button formaction="vbscript:x">`} {
		r := &recorder{}
		assertHarmless(r, bad, bad)
		assert.Positive(t, r.failures, bad)
	}
}
