package translate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/translate"
	"platform/kernel/translate/translatetest"
)

// upper "translates" by upper-casing words: what changed was sent.
var upper = translatetest.Words{Fn: strings.ToUpper}

func md(t *testing.T, p translate.Provider, in string) string {
	t.Helper()
	out, err := translate.Markdown(context.Background(), p, in, "en", "de")
	require.NoError(t, err)
	return out
}

func TestMarkdownFrontMatter(t *testing.T) {
	in := "---\ntitle: Getting started\nslug: getting-started\ntags: [setup, intro]\n---\nBody\n"
	assert.Equal(t, "---\ntitle: GETTING STARTED\nslug: getting-started\ntags: [setup, intro]\n---\nBODY\n", md(t, upper, in))

	quoted := "---\nslug: x\ntitle: \"Setup: the basics\"\n---\n"
	assert.Equal(t, "---\nslug: x\ntitle: 'SETUP: THE BASICS'\n---\n", md(t, upper, quoted))

	unclosed := "---\ntitle: no front matter\n"
	assert.Equal(t, "---\nTITLE: NO FRONT MATTER\n", md(t, upper, unclosed), "a thematic break and a paragraph")
}

func TestMarkdownKeepsCode(t *testing.T) {
	in := "Run `go test ./...` now.\n\n```go\nfunc main() { fmt.Println(\"hi\") }\n```\n\n    indented code\n\n~~~\ntilde fence\n~~~\n"
	want := "RUN `go test ./...` NOW.\n\n```go\nfunc main() { fmt.Println(\"hi\") }\n```\n\n    indented code\n\n~~~\ntilde fence\n~~~\n"
	assert.Equal(t, want, md(t, upper, in))
	assert.Equal(t, "USE ``a ` b`` HERE", md(t, upper, "use ``a ` b`` here"))
}

func TestMarkdownLinks(t *testing.T) {
	in := "See [the guide](https://example.com/a_b \"The Guide\"), ![a logo](img/logo.png) and [a page](wiki:Getting_Started).\n"
	want := "SEE [THE GUIDE](https://example.com/a_b \"The Guide\"), ![A LOGO](img/logo.png) AND [A PAGE](wiki:Getting_Started).\n"
	assert.Equal(t, want, md(t, upper, in))

	auto := "mail <me@example.com>, visit <https://example.com/x> or https://bare.example/path or wiki:Plain_Ref today"
	assert.Equal(t, "MAIL <me@example.com>, VISIT <https://example.com/x> OR https://bare.example/path OR wiki:Plain_Ref TODAY", md(t, upper, auto))

	ref := "a [ref link][r] here\n\n[r]: https://ref.example \"T\"\n"
	assert.Equal(t, "A [REF LINK](https://ref.example \"T\") HERE\n\n[r]: https://ref.example \"T\"\n", md(t, upper, ref))
}

func TestMarkdownKeepsHTML(t *testing.T) {
	in := "Some <b class=\"x\">bold</b> word.\n\n<div class=\"note\">\nhtml block text\n</div>\n"
	assert.Equal(t, "SOME <b class=\"x\">BOLD</b> WORD.\n\n<div class=\"note\">\nhtml block text\n</div>\n", md(t, upper, in))
}

func TestMarkdownListsQuotesHeadings(t *testing.T) {
	in := "# Title *one* #\n\nSub\n---\n\n- first item\n  - nested item\n1. numbered\n- [x] done task\n\n> quoted **bold** line  \n> second line\n"
	want := "# TITLE *ONE* #\n\nSUB\n---\n\n- FIRST ITEM\n  - NESTED ITEM\n1. NUMBERED\n- [x] DONE TASK\n\n> QUOTED **BOLD** LINE\\\n> SECOND LINE\n"
	assert.Equal(t, want, md(t, upper, in))
}

func TestMarkdownTables(t *testing.T) {
	in := "| Name | Value |\n|:-----|------:|\n| a cell | `a\\|b` |\n| x \\| y | ~~old~~ |\n"
	want := "| NAME | VALUE |\n|:-----|------:|\n| A CELL | `a\\|b` |\n| X \\| Y | ~~OLD~~ |\n"
	assert.Equal(t, want, md(t, upper, in))
	pipes := translatetest.Words{Fn: func(w string) string { return strings.ReplaceAll(w, "/", "|") }}
	assert.Equal(t, "| h |\n|---|\n| a\\|b |\n", md(t, pipes, "| h |\n|---|\n| a/b |\n"))
}

// A paragraph's lines are one sentence to the provider: soft breaks
// become spaces.
func TestMarkdownJoinsSoftLines(t *testing.T) {
	assert.Equal(t, "ONE TWO\n\nTHREE\n", md(t, upper, "one\ntwo\n\nthree\n"))
}

func TestMarkdownEntitiesAndEscapes(t *testing.T) {
	assert.Equal(t, `AT&T © \*NOT EMPH\* &amp;COPY;`, md(t, upper, `AT&T &copy; \*not emph\* &amp;copy;`))
}

// Whatever the provider answers, no new block appears in the block.
func TestMarkdownGuardsLineStarts(t *testing.T) {
	odd := translatetest.Words{Fn: func(w string) string {
		if r, ok := map[string]string{"dash": "-", "one": "1.", "hash": "#"}[w]; ok {
			return r
		}
		return w
	}}
	assert.Equal(t, `\- x`, md(t, odd, "dash x"))
	assert.Equal(t, `1\. x`, md(t, odd, "one x"))
	assert.Equal(t, "- a\\\n  \\# b", md(t, odd, "- a  \n  hash b"))
}

func TestMarkdownEmphasisSpaces(t *testing.T) {
	spaced := translatetest.Words{Fn: func(w string) string { return w }}
	assert.Equal(t, "a *b* c", md(t, spaced, "a *b* c"))
	assert.Equal(t, "a **b c** d", md(t, spaced, "a __b c__ d"))
}

type failing struct{}

func (failing) Translate(context.Context, []string, string, string, translate.Format) ([]string, error) {
	return nil, errors.New("called")
}

func TestMarkdownSendsNothingWithoutProse(t *testing.T) {
	in := "```\ncode\n```\n\n`x` <https://a.example>\n\n---\n"
	assert.Equal(t, in, md(t, failing{}, in))
}

type broken struct{}

func (broken) Translate(_ context.Context, texts []string, _, _ string, _ translate.Format) ([]string, error) {
	return []string{"<em>unclosed</strong>"}, nil
}

func TestMarkdownBrokenMarkup(t *testing.T) {
	_, err := translate.Markdown(context.Background(), broken{}, "*a* b", "", "de")
	assert.ErrorContains(t, err, "markup is broken")
}

// End to end through DeepL's protocol: the markup survives a provider
// that rewrites every word outside it.
func TestMarkdownThroughDeepL(t *testing.T) {
	srv := translatetest.New(t)
	in := "---\ntitle: Hello\n---\n# Hi *there*\n\nSee [docs](https://d.example) and `code`.\n"
	out, err := translate.Markdown(context.Background(), newDeepL(t, srv, 0), in, "", "fr")
	require.NoError(t, err)
	assert.Equal(t, "---\ntitle: fr:Hello\n---\n# fr:Hi *fr:there*\n\nfr:See [fr:docs](https://d.example) fr:and `code`fr:.\n", out)
	req := srv.Requests()
	require.Len(t, req, 2)
	assert.Empty(t, req[0].TagHandling, "the title is text")
	assert.Equal(t, "html", req[1].TagHandling)
	for _, text := range req[1].Text {
		assert.NotContains(t, text, "https://d.example", "URLs stay here")
	}
}
