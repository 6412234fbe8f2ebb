package blocks

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/kernel/render"
)

func hashInput(t *testing.T) Input {
	return Input{Title: "T", Description: "D", Locale: "en", SiteCSS: "/site.css",
		Blocks: valid(t, everyType), Snippets: snippets(t),
		Glossary: []render.Term{{ID: "t1", Term: "prose", URL: "/g/prose"}},
		Links:    map[string]string{"kb/a": "https://docs.test/a"}}
}

func TestHashIsStable(t *testing.T) {
	in := hashInput(t)
	h := Hash(in)
	assert.Len(t, h, 64)
	assert.Equal(t, h, Hash(hashInput(t)), "equal inputs, built anew")
	unused := hashInput(t)
	unused.Glossary = append(unused.Glossary, render.Term{ID: "t2", Term: "absent"})
	unused.Links["kb/other"] = "https://docs.test/other"
	unused.Snippets[sid(42)] = []any{label("unused")}
	assert.Equal(t, h, Hash(unused), "entries, links and snippets the page does not use")
}

func TestHashChangesWithTheOutput(t *testing.T) {
	base := Hash(hashInput(t))
	changes := map[string]func(in *Input){
		"title":       func(in *Input) { in.Title = "U" },
		"description": func(in *Input) { in.Description = "E" },
		"locale":      func(in *Input) { in.Locale = "de" },
		"stylesheet":  func(in *Input) { in.SiteCSS = "/v2.css" },
		"a block":     func(in *Input) { in.Blocks[0].(map[string]any)["headline"] = "Hello" },
		"the order":   func(in *Input) { in.Blocks[0].(map[string]any)["order"] = int64(99) },
		"a snippet":   func(in *Input) { in.Snippets[snippetID][0].(map[string]any)["label"] = "Join" },
		"a missing snippet appears": func(in *Input) {
			in.Blocks = append(in.Blocks, place(7))
		},
		"a term used": func(in *Input) { in.Glossary[0].URL = "/g/prose-2" },
		"a link used": func(in *Input) {
			in.Blocks[1].(map[string]any)["body"] = "[a](wiki:kb/a)"
		},
	}
	for name, change := range changes {
		in := hashInput(t)
		change(&in)
		assert.NotEqual(t, base, Hash(in), name)
	}
	linked := hashInput(t)
	linked.Blocks[1].(map[string]any)["body"] = "[a](wiki:kb/a)"
	before := Hash(linked)
	linked.Links["kb/a"] = "https://docs.test/moved"
	assert.NotEqual(t, before, Hash(linked), "a link's target moves")
}
