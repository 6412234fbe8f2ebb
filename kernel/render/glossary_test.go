package render

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var glossary = []Term{
	{ID: "api", Term: "API", Aliases: []string{"interface"}, URL: "/g/api", Definition: "An *application* programming interface."},
	{ID: "capital", Term: "capital", URL: "/g/capital", Definition: "Money."},
	{ID: "sla", Term: "service level agreement", Aliases: []string{"SLA"}, URL: "/g/sla", Definition: "A promise."},
	{ID: "service", Term: "service", URL: "/g/service", Definition: "Work done."},
	{ID: "ueber", Term: "Überblick", URL: "/g/ueberblick", Definition: "Overview."},
	{ID: "bad", Term: "evil", URL: "javascript:alert(1)", Definition: "x"},
}

// linked renders body against the glossary and returns the texts linked,
// in order, and the IDs of the entries linked.
func linked(t *testing.T, body string) ([]string, []string) {
	t.Helper()
	out, err := Render(Input{Body: body, Format: Markdown, Glossary: glossary})
	require.NoError(t, err)
	var texts []string
	root, err := parse(out.HTML)
	require.NoError(t, err)
	walk(root, func(n *html.Node) bool {
		if c, _ := attr(n, "class"); c == "glossary-term" {
			texts = append(texts, textOf(n))
		}
		return true
	})
	return texts, out.Terms
}

func TestGlossaryRules(t *testing.T) {
	for _, c := range []struct {
		name, body string
		texts, ids []string
	}{
		{"whole word", "capitalism and APIs", nil, nil},
		{"case-insensitive, as written", "the api", []string{"api"}, []string{"api"}},
		{"punctuation around", "(API), capital.", []string{"API", "capital"}, []string{"api", "capital"}},
		{"first per section", "API and API", []string{"API"}, []string{"api"}},
		{"alias is the same entry", "interface then API", []string{"interface"}, []string{"api"}},
		{"new section links again", "API\n\n## Next\n\nAPI", []string{"API", "API"}, []string{"api"}},
		{"not in headings", "# API\n\ntext", nil, nil},
		{"not in code", "`API`\n\n```\nAPI\n```", nil, nil},
		{"not in links", "[API](/x)", nil, nil},
		{"longest match", "our Service Level Agreement", []string{"Service Level Agreement"}, []string{"sla"}},
		{"hyphenated words", "a service-level agreement", []string{"service-level agreement"}, []string{"sla"}},
		{"not across punctuation", "service, level agreement", []string{"service"}, []string{"service"}},
		{"shorter after longer", "SLA; then service", []string{"SLA", "service"}, []string{"service", "sla"}},
		{"unicode", "Der Überblick, ÜBERBLICK", []string{"Überblick"}, []string{"ueber"}},
		{"decomposed unicode", "Der U\u0308berblick", []string{"U\u0308berblick"}, []string{"ueber"}},
		{"unicode word boundary", "Überblicke", nil, nil},
		{"unsafe URL never linked", "evil", nil, nil},
		{"inside emphasis", "**API**", []string{"API"}, []string{"api"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			texts, ids := linked(t, c.body)
			assert.Equal(t, c.texts, texts)
			assert.Equal(t, c.ids, ids)
		})
	}
}

func TestGlossaryLinkMarkup(t *testing.T) {
	terms := []Term{{ID: `x"1`, Term: "tag", URL: `/g/tag?a=1&b="2"`,
		Definition: "Use <script>alert(1)</script> **bold** " + strings.Repeat("long ", 60)}}
	out, err := Render(Input{Body: "a tag", Format: Markdown, Glossary: terms})
	require.NoError(t, err)
	assert.Contains(t, out.HTML, `<a class="glossary-term" href="/g/tag?a=1&amp;b=&#34;2&#34;" title="Use alert(1) bold long`)
	assert.Contains(t, out.HTML, `…" data-term="x&#34;1">tag</a>`)
	assert.NotContains(t, out.HTML, "<script")
	root, err := parse(out.HTML)
	require.NoError(t, err)
	title, _ := attr(root.FirstChild.LastChild, "title")
	assert.Len(t, []rune(title), maxTitle)
}

func TestGlossaryEntriesSharingATerm(t *testing.T) {
	a := Term{ID: "a", Term: "API", URL: "/a"}
	b := Term{ID: "b", Term: "api", URL: "/b"}
	for _, g := range [][]Term{{a, b}, {b, a}} {
		out, err := Render(Input{Body: "API", Format: Markdown, Glossary: g})
		require.NoError(t, err)
		assert.Equal(t, []string{"a"}, out.Terms)
	}
}

func TestMatching(t *testing.T) {
	ids := func(ts []Term) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	assert.Equal(t, []string{"api", "capital"}, ids(Matching("The API of capital", glossary)))
	assert.Equal(t, []string{"service", "sla"}, ids(Matching("service level agreement", glossary)))
	assert.Equal(t, []string{"api"}, ids(Matching("AP&#73; in `code` counts", glossary)))
	assert.Empty(t, Matching("capitalism", glossary))
	assert.Empty(t, Matching("anything", nil))
}

func TestPlainText(t *testing.T) {
	for md, want := range map[string]string{
		"An *application* interface.":       "An application interface.",
		"Line one\nline two\n\nPara":        "Line one line two Para",
		`Escaped \*stars\* &amp; &lt;b&gt;`: "Escaped *stars* & <b>",
		"[a link](/x) and <https://x.test>": "a link and https://x.test",
		"<b>raw</b> `code` here":            "raw code here",
		"- one\n- two":                      "one two",
		"```\nfenced\n```":                  "fenced",
		"":                                  "",
	} {
		assert.Equal(t, want, plainText(md), md)
	}
}
