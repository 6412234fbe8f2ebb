package blocks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTextsListEveryReadableString(t *testing.T) {
	var got []string
	markdown := map[string]bool{}
	for _, tx := range Texts(valid(t, everyType)) {
		got = append(got, tx.Path+"="+tx.Value)
		markdown[tx.Path] = tx.Markdown
	}
	assert.Equal(t, []string{
		"blocks[0].headline=Welcome", "blocks[0].subline=We build things",
		"blocks[1].body=## Intro\n\nPlain **prose** about the API.",
		"blocks[2].alt=A chart", "blocks[2].caption=Growth",
		"blocks[3].images[0].alt=One", "blocks[3].images[1].alt=Two", "blocks[3].images[1].caption=Second",
		"blocks[4].label=Start now",
		"blocks[5].title=Contact us",
		"blocks[6].title=Our product",
		"blocks[7].items[0].question=Is it free?", "blocks[7].items[0].answer=Yes, *mostly*.",
		"blocks[7].items[1].question=How?", "blocks[7].items[1].answer=## Steps\n\n1. Sign up",
		"blocks[8].plans[0].name=Basic", "blocks[8].plans[0].features[0]=One user", "blocks[8].plans[0].features[1]=Email support",
		"blocks[8].plans[0].cta.label=Buy", "blocks[8].plans[1].name=Pro",
		"blocks[9].items[0].quote=Great tool", "blocks[9].items[0].author=Ada", "blocks[9].items[0].role=CTO",
		"blocks[9].items[1].quote=Fast", "blocks[9].items[1].author=Bob",
	}, got)
	assert.Equal(t, map[string]bool{"blocks[1].body": true, "blocks[7].items[0].answer": true, "blocks[7].items[1].answer": true},
		trueOnly(markdown))
}

func trueOnly(m map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k, v := range m {
		if v {
			out[k] = true
		}
	}
	return out
}

func TestSetTextsRoundTrip(t *testing.T) {
	blocks := valid(t, everyType)
	texts := Texts(blocks)
	for i := range texts {
		texts[i].Value = strings.ToUpper(texts[i].Value)
	}
	texts = append(texts, Text{Path: "blocks[4].url", Value: "https://evil.test"}, Text{Path: "blocks[99].label", Value: "x"})
	translated := SetTexts(blocks, texts)
	assert.Equal(t, texts[:len(texts)-2], Texts(translated))
	assert.Equal(t, "Welcome", blocks[0].(map[string]any)["headline"], "the original is left alone")
	assert.Equal(t, "https://app.test/signup", translated[4].(map[string]any)["url"], "a path of no text is ignored")
	assert.Equal(t, "EUR", translated[8].(map[string]any)["plans"].([]any)[0].(map[string]any)["currency"])
	_, errs := validate(t, mustJSON(t, translated))
	require.Empty(t, errs, "the translation is still valid")
}
