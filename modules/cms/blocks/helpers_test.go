package blocks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"platform/kernel/resource"
)

// everyType is one valid block of each type, as a client sends them.
const everyType = `[
 {"type":"hero","headline":"Welcome","subline":"We build things","heroImage":"https://img.test/hero.jpg","order":1},
 {"type":"text","body":"## Intro\n\nPlain **prose** about the API.","order":2},
 {"type":"image","url":"https://img.test/a.png","alt":"A chart","caption":"Growth","order":3},
 {"type":"gallery","images":[{"url":"https://img.test/1.png","alt":"One"},{"url":"https://img.test/2.png","alt":"Two","caption":"Second"}],"order":4},
 {"type":"cta","label":"Start now","url":"https://app.test/signup","order":5},
 {"type":"form","formId":"65a1b2c3d4e5f6a7b8c9d0e1","title":"Contact us","order":6},
 {"type":"embed","url":"https://www.youtube.com/watch?v=dQw4w9WgXcQ","title":"Our product","order":7},
 {"type":"accordion","items":[{"question":"Is it free?","answer":"Yes, *mostly*."},{"question":"How?","answer":"## Steps\n\n1. Sign up"}],"order":8},
 {"type":"pricing","plans":[{"name":"Basic","price":9.9,"currency":"EUR","period":"month","features":["One user","Email support"],"cta":{"label":"Buy","url":"https://app.test/buy"}},{"name":"Pro","price":29,"currency":"EUR","period":"year"}],"order":9},
 {"type":"testimonials","items":[{"quote":"Great tool","author":"Ada","role":"CTO","avatar":"https://img.test/ada.png"},{"quote":"Fast","author":"Bob"}],"order":10},
 {"type":"snippet","snippetId":"65a1b2c3d4e5f6a7b8c9d0ff","order":11}
]`

// decode reads JSON as the API does: numbers as json.Number.
func decode(t testing.TB, js string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// validate checks a blocks array as a write would: the declaration, then
// Check on the raw list so both name the same elements.
func validate(t testing.TB, js string) ([]any, []resource.ErrorEntry) {
	t.Helper()
	raw := decode(t, js)
	f := Field()
	out, errs := resource.ValidateValue(&f, raw, "blocks")
	if list, ok := raw.([]any); ok {
		errs = append(errs, Check(list)...)
	}
	blocks, _ := out.([]any)
	return blocks, errs
}

// valid decodes and validates blocks that must be valid.
func valid(t testing.TB, js string) []any {
	t.Helper()
	blocks, errs := validate(t, js)
	require.Empty(t, errs)
	return blocks
}

func fields(errs []resource.ErrorEntry) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field)
	}
	return out
}

// parse reads a rendered document as a browser would.
func parse(t testing.TB, doc string) *html.Node {
	t.Helper()
	root, err := html.Parse(strings.NewReader(doc))
	require.NoError(t, err)
	return root
}

// elements are the elements of a document named tag ("" for all).
func elements(root *html.Node, tag string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (tag == "" || n.Data == tag) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// snippetBlocks is the snippet everyType places.
const snippetID = "65a1b2c3d4e5f6a7b8c9d0ff"

func snippets(t testing.TB) map[string][]any {
	return map[string][]any{snippetID: valid(t, `[{"type":"cta","label":"Newsletter","url":"https://news.test/"}]`)}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
