// Package sandbox runs user code (JavaScript custom functions and
// transforms, JSONata expressions) so that it can never take the platform
// down.
//
// goja and blues/jsonata-go cannot be contained in-process (see
// shared/NOTES.md): built-ins and backtracking regular expressions ignore
// goja's interrupt, goja has no memory limit, and a recursive JSONata
// expression kills the Go process with a fatal stack overflow. So every
// call runs in a child process (`platform sandbox`, see ServeChild) kept in
// a small Pool by the worker. The child has an address-space rlimit and a
// small maximum stack; the parent SIGKILLs it when the wall-clock limit plus
// a grace period passes and replaces it. Inside the child each call gets a
// fresh goja runtime with a call-stack limit and an interrupt at the time
// limit, and only JSON crosses the boundary in either direction.
//
// The JavaScript API offered to user code is the ECMAScript built-ins of
// goja, the argument `input` (the request's input, parsed from JSON), and
// console.log (also .info, .warn, .error, .debug; captured into
// Result.Logs, at most 100 lines of at most 1,000 characters). There is no
// require, module loading, file system, network, timers, process or any
// other host object. The value returned (a js-function's return value, a
// js-expression's value) is converted with the built-in JSON.stringify as it
// was before user code ran; undefined becomes null.
package sandbox

import (
	"encoding/json"
	"fmt"

	"platform/kernel/jsonlimit"
)

// Kind says how Request.Code is read.
type Kind string

const (
	// KindJSFunction: Code is the body of `function (input) { ... }`,
	// e.g. `return { sum: input.a + input.b }`.
	KindJSFunction Kind = "js-function"
	// KindJSExpression: Code is one JavaScript expression over `input`,
	// e.g. `input.items.length`.
	KindJSExpression Kind = "js-expression"
	// KindJSONata: Code is a JSONata expression evaluated against input.
	KindJSONata Kind = "jsonata"
)

// Error kinds: a step that fails reports one of these in Error.Kind.
const (
	ErrKindSyntax         = "syntax"           // the code does not compile (Line, Column set)
	ErrKindRuntime        = "runtime"          // the code threw or the expression failed
	ErrKindTimeout        = "timeout"          // the wall-clock limit passed
	ErrKindMemory         = "memory"           // the memory limit was reached
	ErrKindStackOverflow  = "stack_overflow"   // recursion too deep
	ErrKindInputTooLarge  = "input_too_large"  // input or code above the pool's limits
	ErrKindOutputTooLarge = "output_too_large" // result above the pool's limit
	ErrKindCrashed        = "crashed"          // the sandbox process died for another reason
	ErrKindInvalidRequest = "invalid_request"  // unknown kind, input that is not JSON
)

// Request is one call: the wire format between pool and child as well.
type Request struct {
	Kind  Kind            `json:"kind"`
	Code  string          `json:"code"`
	Input json.RawMessage `json:"input,omitempty"` // JSON; empty means null
	// TimeoutMs is the wall-clock limit of this call; 0 means the pool's
	// default (1 s).
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

// Result is the outcome of one call. Exactly one of Output and Error is set.
type Result struct {
	Output     json.RawMessage `json:"output,omitempty"`
	Logs       []string        `json:"logs"`
	DurationMs float64         `json:"durationMs"`
	Error      *Error          `json:"error,omitempty"`
}

// Value is the call's output decoded (numbers as json.Number), or its
// error. An output the platform could not keep is an ErrKindOutputTooLarge
// error: objects and arrays nested deeper than jsonlimit.MaxDepth (user
// code builds them easily), or a number beyond a float64 (JSON.stringify
// and the JSONata encoder never write one, but the parent does not take a
// child's word for it).
func (r Result) Value() (any, *Error) {
	if r.Error != nil {
		return nil, r.Error
	}
	v, err := jsonlimit.Decode(r.Output)
	if err != nil {
		return nil, errorf(ErrKindOutputTooLarge, "the result cannot be kept: %v", err)
	}
	return v, nil
}

// Error is a user-code failure: a clean step error, never a platform fault.
// Line and Column (1-based, relative to Request.Code) are set when known.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: %s (line %d, column %d)", e.Kind, e.Message, e.Line, e.Column)
	}
	return e.Kind + ": " + e.Message
}

func errorf(kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Compile checks code of the given kind and returns nil or a syntax error
// with line and column. It runs the parser in this process, and parsing
// hostile code is not cheap (measured: 100,000 nested parentheses took
// goja 1 s and more than 64 MB of stack, jsonata-go 0.35 s): for user code
// use Pool.Compile, which runs this in a child.
func Compile(kind Kind, code string) *Error {
	switch kind {
	case KindJSFunction, KindJSExpression:
		_, err := compileJS(kind, code)
		return err
	case KindJSONata:
		_, err := compileJSONata(code)
		return err
	default:
		return errorf(ErrKindInvalidRequest, "unknown kind %q", kind)
	}
}
