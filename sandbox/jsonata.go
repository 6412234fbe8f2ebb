package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	jsonata "github.com/blues/jsonata-go"
	"github.com/blues/jsonata-go/jparse"
)

func compileJSONata(code string) (*jsonata.Expr, *Error) {
	expr, err := jsonata.Compile(code)
	if err == nil {
		return expr, nil
	}
	e := &Error{Kind: ErrKindSyntax, Message: err.Error()}
	var pe *jparse.Error
	if errors.As(err, &pe) {
		e.Line, e.Column = lineColumn(code, pe.Position)
	}
	return nil, e
}

// lineColumn turns jparse's byte offset into a 1-based line and a column
// counted in characters, like goja's positions.
func lineColumn(code string, offset int) (line, col int) {
	offset = min(max(offset, 0), len(code))
	before := code[:offset]
	line = strings.Count(before, "\n") + 1
	start := strings.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCountInString(before[start:]) + 1
}

// runJSONata evaluates an expression. jsonata-go takes no time limit or
// context and can overflow the stack fatally: the parent's kill and the
// child's maximum stack are what bound it.
func runJSONata(req wireRequest) Result {
	expr, serr := compileJSONata(req.Code)
	if serr != nil {
		return Result{Error: serr}
	}
	var input any
	if err := json.Unmarshal(inputOrNull(req.Input), &input); err != nil {
		return Result{Error: errorf(ErrKindInvalidRequest, "input is not JSON: %v", err)}
	}
	v, err := expr.Eval(input)
	switch {
	case errors.Is(err, jsonata.ErrUndefined):
		v = nil // no match: JSON has no undefined
	case err != nil:
		return Result{Error: &Error{Kind: ErrKindRuntime, Message: clip(err.Error())}}
	}
	out, eerr := marshalJSON(v, req.maxOutput())
	if eerr != nil {
		return Result{Error: eerr}
	}
	return Result{Output: out}
}

// marshalJSON keeps `<`, `>` and `&` as they are and refuses values that
// are not JSON (a function returned by the expression, NaN).
func marshalJSON(v any, maxOut int) (json.RawMessage, *Error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, errorf(ErrKindRuntime, "the result is not JSON: %v", err)
	}
	out := bytes.TrimRight(buf.Bytes(), "\n")
	if len(out) > maxOut {
		return nil, tooLarge(len(out), maxOut)
	}
	return out, nil
}
