// Package jsonlimit is the one check of JSON that comes from outside the
// platform (request bodies, pipeline run inputs, the results of user code,
// the answers of http steps) before any of it is stored or rendered: JSON
// that is well-formed but that a store or an encoder cannot keep.
package jsonlimit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxDepth is how deeply objects and arrays may nest in one JSON value (a
// top-level object is level 1). SQLite's JSON functions stop at 1,000
// levels and MongoDB at 100; the platform wraps a value a few levels
// deeper when it stores it (an event's data, a run's input, a step's output
// inside its run record), and no record needs more than a handful. 64
// leaves that room under both stores and keeps every recursive walk over a
// stored value shallow.
const MaxDepth = 64

// ErrTrailingData: the text holds more than one JSON value.
var ErrTrailingData = errors.New("more than one JSON value")

// Error is well-formed JSON the platform refuses.
type Error struct {
	// TooDeep: objects and arrays nest deeper than MaxDepth; Offset is the
	// 1-based byte position of the bracket that opens level MaxDepth+1.
	TooDeep bool
	Offset  int
	// Path locates a number beyond the range of a 64-bit float (1e999),
	// which no encoder can write back: "customCRM.n", "tags[2]", "[0].n".
	Path string
}

func (e *Error) Error() string {
	if e.TooDeep {
		return fmt.Sprintf("objects and arrays nest deeper than %d levels (at byte %d)", MaxDepth, e.Offset)
	}
	return fmt.Sprintf("%s: the number is beyond the range of a 64-bit float", e.Path)
}

// Decode reads exactly one JSON value, numbers kept as json.Number. Nesting
// deeper than MaxDepth is refused before anything is decoded, and numbers
// that would be ±Inf as float64 after; both as *Error. Other errors are the
// decoder's (*json.SyntaxError, io.ErrUnexpectedEOF) or ErrTrailingData.
func Decode(data []byte) (any, error) {
	if at, deep := tooDeep(data); deep {
		return nil, &Error{TooDeep: true, Offset: at}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, ErrTrailingData
	}
	if err := finite(v); err != nil {
		return nil, err
	}
	return v, nil
}

// tooDeep finds the bracket that opens level MaxDepth+1, outside strings.
// It only counts: malformed text is left to the decoder.
func tooDeep(data []byte) (int, bool) {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++ // the escaped byte cannot end the string
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return i + 1, true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return 0, false
}

// finite refuses the first number that overflows a float64; the path is
// built while unwinding, so a clean value costs no allocation.
func finite(v any) *Error {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(x), 64); err != nil {
			return &Error{}
		}
	case map[string]any:
		for k, e := range x {
			if err := finite(e); err != nil {
				err.Path = join(k, err.Path)
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := finite(e); err != nil {
				err.Path = join("["+strconv.Itoa(i)+"]", err.Path)
				return err
			}
		}
	}
	return nil
}

// join prefixes a path with a key or an index: "a" + "b" is "a.b", "a" +
// "[1]" is "a[1]".
func join(head, rest string) string {
	if rest == "" || rest[0] == '[' {
		return head + rest
	}
	return head + "." + rest
}
