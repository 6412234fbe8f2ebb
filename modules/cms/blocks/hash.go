package blocks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"platform/kernel/render"
)

// Hash identifies what Render would make of in: the same inputs give the
// same hash, so a stored page whose hash is unchanged need not be
// rendered again. It covers Version, the page's fields, its blocks, the
// blocks of the snippets it shows (and which are missing), and
// render.Hash of each Markdown field shown, which covers the glossary
// entries and links that field uses and kernel/render's version; entries,
// links and snippets the page does not use leave it alone.
func Hash(in Input) string {
	h := sha256.New()
	render.WriteFields(h, Version, in.Title, in.Description, in.Locale, in.SiteCSS, canonical(in.Blocks))
	x := expand(in.Blocks, in.Snippets)
	for _, id := range slices.Sorted(maps.Keys(x.used)) {
		render.WriteFields(h, "snippet", id, canonical(in.Snippets[id]))
	}
	for _, id := range slices.Sorted(maps.Keys(x.missing)) {
		render.WriteFields(h, "missing", id)
	}
	eachMarkdown(x.nodes, func(body string) {
		render.WriteFields(h, "markdown", render.Hash(render.Input{Body: body, Format: render.Markdown, Glossary: in.Glossary, Links: in.Links}))
	})
	return hex.EncodeToString(h.Sum(nil))
}

// eachMarkdown calls fn with every Markdown field the nodes show, in page
// order.
func eachMarkdown(nodes []node, fn func(string)) {
	for _, n := range nodes {
		switch n.doc[tag] {
		case TypeText:
			fn(text(n.doc, "body"))
		case TypeAccordion:
			for _, it := range items(n.doc, "items") {
				fn(text(it, "answer"))
			}
		}
		eachMarkdown(n.children, fn)
	}
}

// canonical is blocks as JSON, whose objects encoding/json writes with
// sorted keys; a value JSON cannot hold (NaN) falls back to Go syntax,
// which prints maps sorted too.
func canonical(blocks []any) string {
	b, err := json.Marshal(blocks)
	if err != nil {
		return fmt.Sprintf("%#v", blocks)
	}
	return string(b)
}
