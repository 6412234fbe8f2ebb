package newsletter

import (
	"strings"
	"testing"

	"platform/modules/marketing/tracking"
)

// TestTrackRewritesLinksButNotTheOptOut: absolute http(s) anchors of
// either quote style go through the signed click redirect (entities
// decoded in the target), the opt-out link and other schemes stay, and
// the pixel lands before </body>.
func TestTrackRewritesLinksButNotTheOptOut(t *testing.T) {
	sg := tracking.Signer{Base: "https://gw.example.com/t", Key: []byte(strings.Repeat("k", 32))}
	unsub := "https://gw.example.com/t/u/c/x/n/sig"
	body := `<body><a href="https://a.example/p?x=1&amp;y=2">a</a> <a class=x href='http://b.example/'>b</a>` +
		`<a href="mailto:me@example.com">m</a> <a href="/relative">r</a> <a href="` + unsub + `">u</a></body>`
	got := Track(body, sg, "cust", "log1", unsub)
	wantA := sg.Click("cust", "log1", "https://a.example/p?x=1&y=2")
	if !strings.Contains(got, `href="`+strings.ReplaceAll(wantA, "&", "&amp;")+`"`) {
		t.Errorf("a not rewritten to %s: %s", wantA, got)
	}
	if !strings.Contains(got, strings.ReplaceAll(sg.Click("cust", "log1", "http://b.example/"), "&", "&amp;")) {
		t.Errorf("b not rewritten: %s", got)
	}
	for _, keep := range []string{`href="mailto:me@example.com"`, `href="/relative"`, `href="` + unsub + `"`} {
		if !strings.Contains(got, keep) {
			t.Errorf("%s changed: %s", keep, got)
		}
	}
	if !strings.HasSuffix(got, `style="display:none"></body>`) || !strings.Contains(got, sg.Pixel("cust", "log1")) {
		t.Errorf("pixel not before </body>: %s", got)
	}
}

func TestPlainTextDropsTagsAndDecodes(t *testing.T) {
	got := PlainText("<style>p{}</style><p>Fish &amp; chips</p>\n\n\n\n<p>Bye</p>")
	if got != "Fish & chips\n\nBye" {
		t.Errorf("PlainText = %q", got)
	}
}
