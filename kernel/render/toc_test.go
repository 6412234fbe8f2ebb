package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTOC(t *testing.T) {
	body := "# Einführung & Überblick\n\n## Setup\n\n## Setup\n\n### Setup 2\n\n## ???\n\n" +
		"#### `code` *in* heading\n\n## Setup\n\n###### 日本語 見出し\n\nSetup 2\n---\n"
	want := []Heading{
		{1, "einfuhrung-uberblick", "Einführung & Überblick"},
		{2, "setup", "Setup"},
		{2, "setup-2", "Setup"},
		{3, "setup-2-2", "Setup 2"},
		{2, "section", "???"},
		{4, "code-in-heading", "code in heading"},
		{2, "setup-3", "Setup"},
		{6, "日本語-見出し", "日本語 見出し"},
		{2, "setup-2-3", "Setup 2"},
	}
	out := md(t, body)
	assert.Equal(t, want, out.TOC)
	assert.Contains(t, out.HTML, `<h2 id="setup-2">Setup</h2>`)
	assert.Equal(t, out, md(t, body), "the same body gives the same ids")
}

func TestTOCReplacesAuthorIDs(t *testing.T) {
	out := md(t, `<h2 id="x">A</h2><p id="a">p</p>`+"\n\n## A")
	assert.Equal(t, `<h2 id="a">A</h2><p>p</p>`+"\n"+`<h2 id="a-2">A</h2>`+"\n", out.HTML)
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Hello, World!":  "hello-world",
		"  --x--  ":      "x",
		"Ça va? Æble":    "ca-va-æble",
		"":               "section",
		"Version 2.0.1":  "version-2-0-1",
		"ÀÉÎÕÜ":          "aeiou",
		"a\u0301b":       "ab",
		"Straße":         "straße",
		"CAPS_and_snake": "caps-and-snake",
	} {
		assert.Equal(t, want, slug(in), in)
	}
	// maxSlug counts letters and digits, not the hyphens between them.
	assert.Equal(t, strings.Repeat("ab-", 39)+"ab", slug(strings.Repeat("ab ", 100)))
}
