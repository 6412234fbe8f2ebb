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

// TestPlainTextKeepsWordsApart: the text part reads like the HTML does
// (issue 30: "Hi Alan!Read our news.Unsubscribe").
func TestPlainTextKeepsWordsApart(t *testing.T) {
	for _, tc := range []struct{ name, html, want string }{
		{"paragraphs and the opt-out link",
			`<html><head><title>News</title></head><body><h1>Hi Alan!</h1><p>Read our <b>news</b>.</p>` +
				`<p><a href="https://t.example/u/1">Unsubscribe</a></p><img src="https://t.example/o.gif" alt="" width="1"></body></html>`,
			"Hi Alan!\n\nRead our news.\n\nUnsubscribe (https://t.example/u/1)"},
		{"divs and line breaks", "<div>Hi</div><div>there<br>you</div>", "Hi\nthere\nyou"},
		{"lists", "<p>Menu:</p><ul><li>Fish</li><li>Chips<ol><li>salt</li><li>vinegar</li></ol></li></ul><p>End</p>",
			"Menu:\n\n- Fish\n- Chips\n1. salt\n2. vinegar\n\nEnd"},
		{"a table row per line", "<table><tr><td>Plan</td><td>Price</td></tr><tr><td>Pro</td><td>9</td></tr></table>",
			"Plan Price\nPro 9"},
		{"whitespace collapses, entities decode", "<p>  Fish\n\t &amp;\n chips </p>", "Fish & chips"},
		{"a link that shows its address once", `<p>See <a href="https://x.example">https://x.example</a> now</p>`, "See https://x.example now"},
		{"mailto and relative links", `<p><a href="mailto:me@example.com">Write</a> or <a href="/here">here</a></p>`, "Write (me@example.com) or here"},
		{"preformatted text kept", "<pre>a  b\n  c</pre><p>d</p>", "a  b\n  c\n\nd"},
		{"scripts and styles leave nothing", "<p>a<script>x()</script><style>p{}</style>b</p>", "ab"},
		{"an image's alt text", `<p>Logo: <img src="l.png" alt="ACME"></p>`, "Logo: ACME"},
	} {
		if got := PlainText(tc.html); got != tc.want {
			t.Errorf("%s: PlainText = %q, want %q", tc.name, got, tc.want)
		}
	}
}
