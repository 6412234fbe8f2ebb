package blocks

import (
	"embed"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"

	"platform/kernel/render"
)

// Version names the behaviour of Render; Hash includes it. Bump it when
// a change makes Render give different HTML for the same input, so every
// stored page is rendered again.
const Version = "blocks/1"

// Input is a page and everything it is rendered against.
type Input struct {
	Title       string // the SEO title
	Description string // the meta description
	Locale      string // the lang attribute; "en" when not a language tag
	Blocks      []any
	// Snippets maps a snippet's id to its blocks, for the snippet blocks
	// the page and its snippets hold; one missing here shows nothing.
	Snippets map[string][]any
	Glossary []render.Term
	Links    map[string]string // "kb/slug" to URL, as in kernel/render
	SiteCSS  string            // the stylesheet's URL
}

// Output is a rendered page.
type Output struct {
	HTML string // the whole HTML5 document
	// TOC: the headings of the text blocks, ids unique on the page.
	TOC []render.Heading
	// Terms, BrokenLinks: as in kernel/render, over all Markdown fields;
	// sorted, unique.
	Terms, BrokenLinks []string
	// MissingSnippets: the snippets not shown because they are missing,
	// enclose themselves or nest deeper than 8; sorted.
	MissingSnippets []string
}

//go:embed templates/*.html
var templateFiles embed.FS

var templates = template.Must(template.New("blocks").Funcs(funcs).ParseFS(templateFiles, "templates/*.html"))

// Render renders a page of blocks into an HTML document: the visible
// blocks by order, then list order, with snippets expanded.
func Render(in Input) (Output, error) {
	x := expand(in.Blocks, in.Snippets)
	r := &renderer{in: in, locale: pageLocale(in.Locale), taken: map[string]int{},
		terms: map[string]bool{}, broken: map[string]bool{}}
	main, err := r.nodes(x.nodes)
	if err != nil {
		return Output{}, err
	}
	var b strings.Builder
	err = templates.ExecuteTemplate(&b, "page", page{Locale: r.locale, Title: in.Title,
		Description: in.Description, CSS: safeURL(in.SiteCSS), Main: main})
	return Output{HTML: b.String(), TOC: r.toc, Terms: slices.Sorted(maps.Keys(r.terms)),
		BrokenLinks: slices.Sorted(maps.Keys(r.broken)), MissingSnippets: slices.Sorted(maps.Keys(x.missing))}, err
}

// page is what the document's template gets.
type page struct {
	Locale, Title, Description, CSS string
	Main                            template.HTML
}

// renderer renders one page's blocks and gathers what they report.
type renderer struct {
	in            Input
	locale        string
	taken         map[string]int // heading ids handed out (unique)
	toc           []render.Heading
	terms, broken map[string]bool
}

// nodes renders blocks in turn; a block of an unknown type shows nothing.
func (r *renderer) nodes(nodes []node) (template.HTML, error) {
	var b strings.Builder
	for i, n := range nodes {
		v, err := r.view(n)
		if err != nil {
			return "", fmt.Errorf("blocks: block %d (%v): %w", i, n.doc["_id"], err)
		}
		if typ, _ := n.doc[tag].(string); union().Variant(typ) != nil {
			if err := templates.ExecuteTemplate(&b, typ, v); err != nil {
				return "", err
			}
		}
	}
	return template.HTML(b.String()), nil
}

// view prepares what a block's template needs beyond its fields.
func (r *renderer) view(n node) (v view, err error) {
	v = view{Doc: n.doc, Class: classes(n.doc), Locale: r.locale}
	switch n.doc[tag] {
	case TypeText:
		v.HTML, err = r.markdown(text(n.doc, "body"), true)
	case TypeAccordion:
		v.Items, err = r.answers(n.doc)
	case TypeEmbed:
		v.Frame = embedFrame(n.doc)
	case TypeSnippet:
		v.Inner, err = r.nodes(n.children)
	}
	return v, err
}

func (r *renderer) answers(doc map[string]any) ([]answered, error) {
	list := items(doc, "items")
	out := make([]answered, len(list))
	for i, it := range list {
		answer, err := r.markdown(text(it, "answer"), false)
		if err != nil {
			return nil, err
		}
		out[i] = answered{Question: text(it, "question"), Answer: answer}
	}
	return out, nil
}

// embedFrame is the player of an embed block, or nil when its URL is not
// a page of an allowed provider (the block then shows nothing).
func embedFrame(doc map[string]any) *frame {
	src, name := player(text(doc, "url"))
	if src == "" {
		return nil
	}
	title := text(doc, "title")
	if title == "" {
		title = name
	}
	return &frame{Src: src, Title: title, Provider: strings.ToLower(strings.ReplaceAll(name, " ", "-"))}
}
