package render

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	ghtml "github.com/yuin/goldmark/renderer/html"
)

// markdown is CommonMark with the GFM extensions. Raw HTML is rendered
// (WithUnsafe) because the sanitiser cleans everything after this step;
// table alignment is an align attribute, as the sanitiser drops style.
// Heading ids are left to step 5.
var markdown = goldmark.New(
	goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough,
		extension.Linkify,
		extension.TaskList,
	),
	goldmark.WithRendererOptions(ghtml.WithUnsafe()),
)

// safeMarkdown renders glossary definitions, which only need their text:
// raw HTML in them is left out.
var safeMarkdown = goldmark.New()

// markdownToHTML is step 1 for Markdown bodies.
func markdownToHTML(body string) (string, error) {
	var b bytes.Buffer
	err := markdown.Convert([]byte(body), &b)
	return b.String(), err
}
