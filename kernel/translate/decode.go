package translate

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// markdown writes the provider's HTML for b back as Markdown.
func (b block) markdown(translated string) (string, error) {
	d := &decoder{block: b, x: xml.NewDecoder(strings.NewReader(translated))}
	d.x.Strict = false // providers write HTML: <br>, &nbsp;
	d.x.AutoClose = []string{"br", "wbr"}
	d.x.Entity = xml.HTMLEntity
	out, err := d.until()
	if err != nil {
		return "", fmt.Errorf("translate: the provider's markup is broken: %w", err)
	}
	return d.lineStarts(strings.TrimSpace(out)), nil
}

type decoder struct {
	block
	x *xml.Decoder
}

// until renders tokens up to the end of the current element (or text).
func (d *decoder) until() (string, error) {
	var b strings.Builder
	for {
		tok, err := d.x.Token()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		} else if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.WriteString(d.text(string(t)))
		case xml.EndElement:
			return b.String(), nil
		case xml.StartElement:
			s, err := d.element(t)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
	}
}

// text is translated text as Markdown: it was Markdown when sent, so
// only what would change the block's shape is guarded.
func (d *decoder) text(s string) string {
	s = strings.ReplaceAll(s, "\n", " ") // a blank line would end the block
	s = entityLike.ReplaceAllString(s, "&amp;$1")
	if d.cell {
		s = escapePipes(s)
	}
	return s
}

// entityLike is text that Markdown would read as an entity reference
// though it is none now: "&amp;copy;" was sent, "&copy;" came back.
var entityLike = regexp.MustCompile(`&(#?[A-Za-z0-9]+;)`)

// escapePipes escapes the pipes a translation put into a table cell,
// which would split it; escaped ones stay as they are.
func escapePipes(s string) string {
	var b strings.Builder
	for i := range len(s) {
		if s[i] == '|' && (i == 0 || s[i-1] != '\\') {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (d *decoder) element(t xml.StartElement) (string, error) {
	inner, err := d.until()
	if err != nil {
		return "", err
	}
	switch t.Name.Local {
	case "em":
		return delimit("*", inner), nil
	case "strong":
		return delimit("**", inner), nil
	case "del":
		return delimit("~~", inner), nil
	case "br":
		return d.lineBreak(), nil
	}
	return d.indexed(t, inner), nil
}

func (d *decoder) lineBreak() string {
	if d.newline == "" {
		return " "
	}
	return "\\" + d.newline
}

// indexed writes back what a data-i element stands for; an element the
// provider made up gives its text.
func (d *decoder) indexed(t xml.StartElement, inner string) string {
	k, ok := d.lookup(t)
	switch {
	case !ok:
		return inner
	case k.kind == 'a':
		return "[" + inner + "]" + linkTail(k)
	case k.kind == 'i':
		return "![" + inner + "]" + linkTail(k)
	}
	return k.raw
}

func (d *decoder) lookup(t xml.StartElement) (keep, bool) {
	for _, a := range t.Attr {
		if a.Name.Local != "data-i" {
			continue
		}
		if i, err := strconv.Atoi(a.Value); err == nil && i >= 0 && i < len(d.keeps) {
			return d.keeps[i], true
		}
	}
	return keep{}, false
}

// delimit wraps inner in an emphasis delimiter, with the spaces a
// translation put inside moved out, where they do not break it.
func delimit(delim, inner string) string {
	text := strings.TrimSpace(inner)
	if text == "" {
		return inner
	}
	lead := inner[:strings.Index(inner, text)]
	trail := inner[len(lead)+len(text):]
	return lead + delim + text + delim + trail
}

// blockStart is text that would begin a new block at a line's start: a
// heading, quote, list item, thematic break, setext underline or fence.
var blockStart = regexp.MustCompile("^(?:#{1,6}(?:\\s|$)|>|[-+*](?:\\s|$)|[0-9]{1,9}[.)](?:\\s|$)|=+\\s*$|-+\\s*$|```|~~~)")

// lineStarts escapes each line's first character where the translation
// would begin a new block with it ("1. " at a line start is a list).
func (d *decoder) lineStarts(s string) string {
	lines := []string{s}
	if d.newline != "" {
		lines = strings.Split(s, d.newline)
	}
	for i, l := range lines {
		lines[i] = escapeStart(strings.TrimLeft(l, " \t"))
	}
	return strings.Join(lines, d.newline)
}

func escapeStart(line string) string {
	loc := blockStart.FindStringIndex(line)
	if loc == nil {
		return line
	}
	if c := line[0]; c >= '0' && c <= '9' {
		i := strings.IndexAny(line, ".)")
		return line[:i] + `\` + line[i:]
	}
	return `\` + line
}
