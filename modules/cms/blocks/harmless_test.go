package blocks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/net/html"
)

// banned are the elements no page may hold; iframe is allowed only as the
// platform's player, meta and link only as the head's own.
var banned = map[string]bool{"script": true, "style": true, "object": true, "embed": true, "base": true,
	"form": true, "frame": true, "frameset": true, "svg": true, "math": true, "noscript": true, "template": true}

var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "formaction": true,
	"xlink:href": true, "background": true, "poster": true, "srcset": true, "data": true}

// assertHarmless checks that nothing in a rendered page runs code.
func assertHarmless(t *testing.T, doc *html.Node, name string) {
	t.Helper()
	for _, n := range elements(doc, "") {
		assert.False(t, banned[n.Data] || n.Namespace != "", "%s: element %s", name, n.Data)
		switch n.Data {
		case "iframe":
			assert.True(t, platformFrame(attr(n, "src")), "%s: iframe %s", name, attr(n, "src"))
		case "meta":
			assert.Empty(t, attr(n, "http-equiv"), name)
		case "link":
			assert.Equal(t, "stylesheet", attr(n, "rel"), name)
		}
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			assert.False(t, strings.HasPrefix(key, "on"), "%s: attribute %s", name, key)
			assert.NotEqual(t, "style", key, name)
			if urlAttrs[key] {
				assert.False(t, dangerous(a.Val), "%s: %s=%q", name, key, a.Val)
			}
		}
	}
}

// platformFrame tells a player URL the platform builds.
func platformFrame(src string) bool {
	for _, origin := range FrameSources() {
		if strings.HasPrefix(src, origin+"/") {
			return true
		}
	}
	return false
}

// dangerous tells a URL whose scheme runs code or carries a document,
// read as browsers do: control characters and whitespace dropped, case
// folded.
func dangerous(u string) bool {
	u = strings.ToLower(strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, u))
	for _, scheme := range []string{"javascript:", "vbscript:", "data:"} {
		if strings.HasPrefix(u, scheme) {
			return true
		}
	}
	return false
}
