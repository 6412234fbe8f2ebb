package query

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Compile turns a MongoDB (PCRE) pattern into a Go regexp with the same
// meaning. Patterns RE2 cannot run (look-around, back-references) fail.
// Three PCRE rules are rewritten because RE2 differs:
//   - without the m flag, PCRE's "$" also matches before a final newline;
//   - RE2 has no x flag, so white space and #-comments are stripped here;
//   - PCRE's \s also matches the vertical tab.
func (r Regex) Compile() (*regexp.Regexp, error) {
	key := r.Pattern + "\x00" + r.Options
	if re, ok := regexCache.Load(key); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := r.compile()
	if err != nil {
		return nil, err
	}
	if cacheSize.Add(1) <= maxCachedRegexps {
		regexCache.Store(key, re)
	}
	return re, nil
}

func (r Regex) compile() (*regexp.Regexp, error) {
	for _, c := range r.Options {
		if !strings.ContainsRune("imsx", c) {
			return nil, fmt.Errorf("unknown regular expression option %q", c)
		}
	}
	flags := ""
	for _, f := range "ims" {
		if strings.ContainsRune(r.Options, f) {
			flags += string(f)
		}
	}
	pattern := translatePCRE(r.Pattern, strings.ContainsRune(r.Options, 'x'), strings.ContainsRune(r.Options, 'm'))
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	return regexp.Compile(pattern)
}

// check validates a pattern received from a client.
func (r Regex) check() error {
	if len(r.Pattern) > MaxRegexLength {
		return fmt.Errorf("has a pattern longer than %d bytes", MaxRegexLength)
	}
	if strings.ContainsRune(r.Pattern, 0) || !utf8.ValidString(r.Pattern) {
		return errors.New("has a pattern with a NUL byte or invalid UTF-8")
	}
	if _, err := r.compile(); err != nil {
		return fmt.Errorf("is not a valid regular expression (RE2 syntax: no look-around or back-references): %v", unwrapSyntax(err))
	}
	return nil
}

func unwrapSyntax(err error) string {
	msg := err.Error()
	return strings.TrimPrefix(msg, "error parsing regexp: ")
}

var (
	regexCache sync.Map
	cacheSize  atomic.Int64
)

// maxCachedRegexps bounds the cache: patterns come from clients.
const maxCachedRegexps = 10000

// translatePCRE rewrites the PCRE constructs whose meaning RE2 does not
// share (see Compile).
func translatePCRE(p string, extended, multiline bool) string {
	t := pcreTranslator{src: p, extended: extended, multiline: multiline}
	return t.run()
}

type pcreTranslator struct {
	src       string
	out       strings.Builder
	i         int
	inClass   bool
	extended  bool
	multiline bool
}

func (t *pcreTranslator) run() string {
	for t.i < len(t.src) {
		switch {
		case t.src[t.i] == '\\':
			t.escape()
		case t.inClass:
			t.classChar()
		default:
			t.plainChar()
		}
	}
	return t.out.String()
}

func (t *pcreTranslator) copyRune() {
	_, n := utf8.DecodeRuneInString(t.src[t.i:])
	t.out.WriteString(t.src[t.i : t.i+n])
	t.i += n
}

func (t *pcreTranslator) escape() {
	if t.i+1 >= len(t.src) {
		t.copyRune() // a trailing backslash: let RE2 report it
		return
	}
	next := t.src[t.i+1]
	switch {
	case next == 'Q':
		t.quoted()
	case next == 's' && !t.inClass:
		t.out.WriteString(`[\t\n\v\f\r ]`)
		t.i += 2
	case next == 'S' && !t.inClass:
		t.out.WriteString(`[^\t\n\v\f\r ]`)
		t.i += 2
	case next == 's':
		t.out.WriteString(`\t\n\v\f\r `)
		t.i += 2
	case isPCRESpace(next):
		fmt.Fprintf(&t.out, `\x%02X`, next) // RE2 rejects an escaped space
		t.i += 2
	default:
		t.out.WriteByte('\\')
		t.i++
		t.copyRune()
	}
}

// quoted copies \Q...\E untouched: its spaces and "$" are literal.
func (t *pcreTranslator) quoted() {
	end := strings.Index(t.src[t.i+2:], `\E`)
	if end < 0 {
		t.out.WriteString(t.src[t.i:])
		t.i = len(t.src)
		return
	}
	stop := t.i + 2 + end + 2
	t.out.WriteString(t.src[t.i:stop])
	t.i = stop
}

func (t *pcreTranslator) classChar() {
	switch {
	case strings.HasPrefix(t.src[t.i:], "[:"):
		t.posixClass()
	case t.src[t.i] == ']':
		t.inClass = false
		t.copyRune()
	default:
		t.copyRune()
	}
}

func (t *pcreTranslator) posixClass() {
	end := strings.Index(t.src[t.i+2:], ":]")
	if end < 0 {
		t.copyRune()
		return
	}
	stop := t.i + 2 + end + 2
	t.out.WriteString(t.src[t.i:stop])
	t.i = stop
}

func (t *pcreTranslator) plainChar() {
	c := t.src[t.i]
	switch {
	case c == '[':
		t.openClass()
	case t.extended && isPCRESpace(c):
		t.i++
	case t.extended && c == '#':
		t.skipComment()
	case c == '$' && !t.multiline:
		t.out.WriteString(`(?:\n?\z)`)
		t.i++
	case c == '(' && strings.HasPrefix(t.src[t.i:], "(?"):
		t.noteInlineFlags()
		t.copyRune()
	default:
		t.copyRune()
	}
}

// openClass starts a character class; a "]" right after "[" or "[^" is a
// literal in PCRE and RE2 alike.
func (t *pcreTranslator) openClass() {
	t.inClass = true
	t.out.WriteByte('[')
	t.i++
	if t.i < len(t.src) && t.src[t.i] == '^' {
		t.out.WriteByte('^')
		t.i++
	}
	if t.i < len(t.src) && t.src[t.i] == ']' {
		t.out.WriteByte(']')
		t.i++
	}
}

func (t *pcreTranslator) skipComment() {
	end := strings.IndexByte(t.src[t.i:], '\n')
	if end < 0 {
		t.i = len(t.src)
		return
	}
	t.i += end + 1
}

// noteInlineFlags keeps "$" untouched once the pattern turns multi-line
// mode on itself, as in "(?m)^a$" (scoping of the flag is not tracked).
func (t *pcreTranslator) noteInlineFlags() {
	rest := t.src[t.i+2:]
	end := strings.IndexAny(rest, ":)")
	if end < 0 {
		return
	}
	on, _, _ := strings.Cut(rest[:end], "-")
	if strings.ContainsRune(on, 'm') && strings.Trim(rest[:end], "imsxU-") == "" {
		t.multiline = true
	}
}

func isPCRESpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}
