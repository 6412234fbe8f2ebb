package render

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/net/html"
)

// Version names the behaviour of Render. Hash includes it: bump it whenever
// a change makes Render give different HTML for the same input, so every
// stored page is rendered again.
const Version = "render/1"

// MaxBody is the largest body Render accepts, in bytes. A page is text a
// person writes; 1 MiB is far beyond any of them and keeps one render within
// milliseconds.
const MaxBody = 1 << 20

// Formats of Input.Body.
const (
	Markdown = "markdown"
	HTML     = "html"
)

var (
	// ErrTooLarge: the body is over MaxBody bytes.
	ErrTooLarge = errors.New("render: body is larger than 1 MiB")
	// ErrTooDeep: elements nest deeper than the HTML parser's limit (512).
	ErrTooDeep = errors.New("render: elements nest too deeply")
	// ErrFormat: Input.Format is neither Markdown nor HTML.
	ErrFormat = errors.New("render: unknown format")
)

// Term is a glossary entry of the customer.
type Term struct {
	ID, Term string
	Aliases  []string
	// URL is where the term's link points: relative, http or https.
	URL string
	// Definition is Markdown; its plain text is the link's title.
	Definition string
}

// Input is one body and everything it is rendered against.
type Input struct {
	Body   string // raw content
	Format string // Markdown or HTML
	// Glossary: all the customer's entries, or a subset holding at least
	// those Matching finds.
	Glossary []Term
	// Links maps "kb/slug" to the page's public URL; a target missing here
	// is dangling.
	Links map[string]string
}

// Heading is one entry of the table of contents.
type Heading struct {
	Level    int
	ID, Text string
}

// Output is a rendered body.
type Output struct {
	HTML string
	TOC  []Heading
	// BrokenLinks: the dangling "kb/slug" targets, and the whole href of
	// malformed wiki: links; sorted, unique.
	BrokenLinks []string
	// Terms: the IDs of the glossary entries linked, sorted.
	Terms []string
}

// Render runs the pipeline described in the package comment.
func Render(in Input) (Output, error) {
	root, err := sanitised(in.Body, in.Format)
	if err != nil {
		return Output{}, err
	}
	var out Output
	out.Terms = linkTerms(root, newIndex(in.Glossary))
	drawDiagrams(root)
	out.TOC = headingIDs(root)
	out.BrokenLinks = resolveLinks(root, in.Links)
	out.HTML, err = serialise(root)
	return out, err
}

// sanitised is steps 1 and 2: the body as a clean tree under a body element.
func sanitised(body, format string) (*html.Node, error) {
	if len(body) > MaxBody {
		return nil, ErrTooLarge
	}
	src, err := toHTML(body, format)
	if err != nil {
		return nil, err
	}
	root, err := parse(policy.Sanitize(src))
	if err != nil {
		return nil, err
	}
	secureLinks(root)
	return root, nil
}

// toHTML is step 1.
func toHTML(body, format string) (string, error) {
	switch format {
	case HTML:
		return body, nil
	case Markdown:
		return markdownToHTML(body)
	}
	return "", fmt.Errorf("%w %q", ErrFormat, format)
}

// sortedKeys returns the keys of a set in order.
func sortedKeys(set map[string]bool) []string {
	if len(set) == 0 {
		return nil
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// collapse joins the words of s with single spaces.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
