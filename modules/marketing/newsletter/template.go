package newsletter

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mailgun/raymond/v2"
	"github.com/mailgun/raymond/v2/lexer"
)

// SyntaxError is a template that does not compile, with where.
type SyntaxError struct {
	Line, Column int
	Reason       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Reason)
}

// Compile parses a Handlebars template; a syntax error is a *SyntaxError.
func Compile(source string) (*raymond.Template, error) {
	tpl, err := raymond.Parse(source)
	if err != nil {
		return nil, syntaxError(source, err)
	}
	return tpl, nil
}

var (
	lineRE = regexp.MustCompile(`^Parse error on line (\d+):\s*`)
	posRE  = regexp.MustCompile(`Pos:(\d+)`)
)

// syntaxError finds line and column of raymond's error, which names the
// line and the offending token: the column is that token's on the line
// (the first tag's when the token cannot be told).
func syntaxError(source string, err error) *SyntaxError {
	msg := err.Error()
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return &SyntaxError{Line: 1, Column: 1, Reason: oneLine(msg)}
	}
	line, _ := strconv.Atoi(m[1])
	reason := oneLine(strings.TrimPrefix(msg, m[0]))
	return &SyntaxError{Line: line, Column: column(source, line, msg), Reason: reason}
}

// column is the 1-based column of the token of line that msg names.
func column(source string, line int, msg string) int {
	if m := posRE.FindStringSubmatch(msg); m != nil { // a node's offset
		pos, _ := strconv.Atoi(m[1])
		return columnAt(source, pos)
	}
	fallback := -1
	for _, tok := range lexer.Collect(source) {
		if tok.Line != line && !(tok.Kind == lexer.TokenError && line == tok.Line) {
			continue
		}
		if tok.Kind == lexer.TokenError || strings.Contains(msg, tok.String()) && tok.Kind != lexer.TokenContent {
			return columnAt(source, tok.Pos)
		}
		if fallback < 0 && tok.Kind != lexer.TokenContent {
			fallback = tok.Pos
		}
	}
	if fallback < 0 {
		return 1
	}
	return columnAt(source, fallback)
}

// columnAt is the 1-based column (in characters) of byte offset pos.
func columnAt(source string, pos int) int {
	pos = min(max(pos, 0), len(source))
	start := strings.LastIndexByte(source[:pos], '\n') + 1
	return len([]rune(source[start:pos])) + 1
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
