package translate

import (
	"context"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Markdown translates a Markdown document (CommonMark with GitHub's
// tables, task lists, strike-through and bare links) and keeps its
// structure: only the prose of headings, paragraphs, list items, table
// cells and block quotes, link texts, image alt texts and the front
// matter's title are sent to p. The rest of the source is copied byte for
// byte.
//
// Each such block goes to p as one HTML text (FormatHTML), so the
// provider sees whole sentences with their emphasis and links as markup
// it keeps: *a* becomes <em>, a link <a data-i="N"> holding its text, an
// image <span data-i="N"> holding its alt text. What must not change
// (code spans, autolinks, inline HTML, task boxes, wiki: references) is
// replaced by an empty <span data-i="N" translate="no">, and link and
// image URLs never leave this process: N indexes a table kept here. The
// translated HTML is then written back as Markdown in the block's place.
//
// A paragraph's soft line breaks become spaces (the provider translates
// sentences, not lines): a translated paragraph is one line. Reference
// links come back as inline links (their definitions stay), _emphasis_
// as *emphasis*.
func Markdown(ctx context.Context, p Provider, body, source, target string) (string, error) {
	front, rest := splitFrontMatter(body)
	front, err := translateTitle(ctx, p, front, source, target)
	if err != nil {
		return "", err
	}
	rest, err = translateBlocks(ctx, p, rest, source, target)
	if err != nil {
		return "", err
	}
	return front + rest, nil
}

// parser reads GitHub-flavoured Markdown, as the hub's wiki renders it.
var parser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

func translateBlocks(ctx context.Context, p Provider, body, source, target string) (string, error) {
	src := []byte(body)
	blocks := collect(src)
	if len(blocks) == 0 {
		return body, nil
	}
	texts := make([]string, len(blocks))
	for i, b := range blocks {
		texts[i] = b.html
	}
	got, err := p.Translate(ctx, texts, source, target, FormatHTML)
	if err != nil {
		return "", err
	}
	if len(got) != len(texts) {
		return "", errTranslations(len(texts), len(got))
	}
	return splice(body, blocks, got)
}

// splice writes each block's translation, as Markdown, over its source.
func splice(body string, blocks []block, got []string) (string, error) {
	var b strings.Builder
	last := 0
	for i, blk := range blocks {
		md, err := blk.markdown(got[i])
		if err != nil {
			return "", err
		}
		b.WriteString(body[last:blk.start])
		b.WriteString(md)
		last = blk.stop
	}
	b.WriteString(body[last:])
	return b.String(), nil
}

// collect finds the blocks holding prose, in document order. Code and
// HTML blocks hold none, so their source is never looked into.
func collect(src []byte) []block {
	var blocks []block
	doc := parser.Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.Paragraph, *ast.TextBlock, *ast.Heading, *east.TableCell:
			if b, ok := newBlock(n, src); ok {
				blocks = append(blocks, b)
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return blocks
}
