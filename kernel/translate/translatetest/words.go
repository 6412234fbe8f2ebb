package translatetest

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"platform/kernel/translate"
)

// Words is an in-process Provider that "translates" by applying Fn to
// every word a real provider would translate: in FormatHTML, text inside
// tags, entities and ignored elements (code, pre, kbd, samp, var and any
// with translate="no") is left alone. With strings.ToUpper a test sees
// at a glance which parts of a document were sent for translation.
type Words struct {
	Fn func(word string) string
}

// Translate implements translate.Provider.
func (w Words) Translate(_ context.Context, texts []string, _, _ string, format translate.Format) ([]string, error) {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = words(t, w.Fn)
		if format == translate.FormatHTML {
			out[i] = markup(t, ignored, w.Fn)
		}
	}
	return out, nil
}

// ignored are the elements whose content Words never translates, as
// DeepL is told by translate.DeepL.
var ignored = []string{"code", "pre", "kbd", "samp", "var"}

// markup applies fn to each word of s outside tags, entities and
// ignored elements (those named in ignore or with translate="no").
func markup(s string, ignore []string, fn func(string) string) string {
	var b strings.Builder
	skip := 0 // depth inside an ignored element
	for s != "" {
		tok, kind := next(s)
		s = s[len(tok):]
		switch {
		case kind == '<':
			skip = depth(tok, skip, ignore)
		case kind == 't' && skip == 0:
			tok = words(tok, fn)
		}
		b.WriteString(tok)
	}
	return b.String()
}

// next is the first token of s: a tag ('<'), an entity ('&') or text ('t').
func next(s string) (string, byte) {
	if s[0] == '<' {
		if end := strings.IndexByte(s, '>'); end > 0 {
			return s[:end+1], '<'
		}
	}
	if s[0] == '&' {
		if end := strings.IndexByte(s, ';'); end > 1 && entityName(s[1:end]) {
			return s[:end+1], '&'
		}
	}
	end := strings.IndexAny(s[1:], "<&")
	if end < 0 {
		return s, 't'
	}
	return s[:end+1], 't'
}

// depth is the nesting depth inside ignored elements after tag: entering
// one starts it, any element inside one deepens it.
func depth(tag string, d int, ignore []string) int {
	name, closing, selfClosing := tagName(tag)
	switch {
	case selfClosing || voids[name]:
		return d
	case closing && d > 0:
		return d - 1
	case !closing && (d > 0 || slices.Contains(ignore, name) || strings.Contains(tag, `translate="no"`)):
		return d + 1
	}
	return d
}

var voids = map[string]bool{"br": true, "wbr": true, "img": true, "hr": true, "input": true, "meta": true, "link": true}

func tagName(tag string) (name string, closing, selfClosing bool) {
	inner := strings.Trim(tag, "<>")
	closing = strings.HasPrefix(inner, "/")
	selfClosing = strings.HasSuffix(inner, "/") || strings.HasPrefix(inner, "!") || strings.HasPrefix(inner, "?")
	name = strings.TrimLeft(inner, "/")
	if i := strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || r == '/' }); i >= 0 {
		name = name[:i]
	}
	return strings.ToLower(name), closing, selfClosing
}

// words applies fn to each run of non-space characters of s.
func words(s string, fn func(string) string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i == 0 {
			_, size := utf8.DecodeRuneInString(s)
			b.WriteString(s[:size])
			s = s[size:]
			continue
		}
		if i < 0 {
			i = len(s)
		}
		b.WriteString(fn(s[:i]))
		s = s[i:]
	}
	return b.String()
}

// entityName reports whether name is what sits between & and ; of an
// entity ("amp", "#39", "#x27").
func entityName(name string) bool {
	return strings.IndexFunc(name, func(r rune) bool { return r != '#' && !unicode.IsLetter(r) && !unicode.IsDigit(r) }) < 0
}
