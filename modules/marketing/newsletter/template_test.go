package newsletter

import (
	"errors"
	"testing"
)

func TestSyntaxErrorsNameLineAndColumn(t *testing.T) {
	for _, c := range []struct {
		src          string
		line, column int
	}{
		{"Hello {{name", 1, 13},
		{"<p>\n  {{#if a}}x{{/each}}</p>", 2, 16},
		{"a\nb\n   {{foo bar=}}", 3, 14},
		{"one\ntwo {{> }}", 2, 9},
	} {
		_, err := Compile(c.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: err = %v, want a syntax error", c.src, err)
			continue
		}
		t.Logf("%q: %v", c.src, se)
		if se.Line != c.line || se.Column != c.column {
			t.Errorf("%q: at %d:%d, want %d:%d (%s)", c.src, se.Line, se.Column, c.line, c.column, se.Reason)
		}
	}
	if _, err := Compile("Hi {{consumer.first_name}} {{#if x}}y{{/if}}"); err != nil {
		t.Fatal(err)
	}
}
