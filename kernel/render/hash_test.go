package render

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// hashInput uses the term "API" and the link kb/setup; "capital" and
// kb/install are unrelated to its body.
func hashInput() Input {
	return Input{
		Body:     "The API, see [setup](wiki:kb/setup).",
		Format:   Markdown,
		Glossary: slices.Clone(glossary),
		Links:    maps.Clone(links),
	}
}

func TestHash(t *testing.T) {
	base := Hash(hashInput())
	assert.Len(t, base, 64)
	for _, c := range []struct {
		name    string
		change  func(*Input)
		changes bool
	}{
		{"nothing", func(*Input) {}, false},
		{"body", func(in *Input) { in.Body += " " }, true},
		{"format", func(in *Input) { in.Format = HTML }, true},
		{"used definition", func(in *Input) { in.Glossary[0].Definition = "new" }, true},
		{"used URL", func(in *Input) { in.Glossary[0].URL = "/new" }, true},
		{"used alias added", func(in *Input) { in.Glossary[0].Aliases = append(in.Glossary[0].Aliases, "x") }, true},
		{"used link target", func(in *Input) { in.Links["kb/setup"] = "/moved" }, true},
		{"used link removed", func(in *Input) { delete(in.Links, "kb/setup") }, true},
		{"unrelated definition", func(in *Input) { in.Glossary[1].Definition = "new" }, false},
		{"unrelated entry added", func(in *Input) { in.Glossary = append(in.Glossary, Term{ID: "z", Term: "zebra"}) }, false},
		{"glossary order", func(in *Input) { slices.Reverse(in.Glossary) }, false},
		{"unrelated link", func(in *Input) { in.Links["kb/install"] = "/moved" }, false},
		{"unrelated link added", func(in *Input) { in.Links["kb/new"] = "/new" }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := hashInput()
			c.change(&in)
			if c.changes {
				assert.NotEqual(t, base, Hash(in))
			} else {
				assert.Equal(t, base, Hash(in))
			}
		})
	}
}

func TestHashAliasOrder(t *testing.T) {
	a, b := hashInput(), hashInput()
	a.Glossary[0].Aliases = []string{"interface", "x"}
	b.Glossary[0].Aliases = []string{"x", "interface"}
	assert.Equal(t, Hash(a), Hash(b))
}
