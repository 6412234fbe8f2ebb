package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

const (
	// maxCallStack bounds JS recursion, including recursion through
	// built-ins, which otherwise ignores the interrupt (NOTES.md).
	maxCallStack = 500
	// jsFile names user code in goja's positions so that frames of the
	// wrapper and the prelude can be told apart from it.
	jsFile = "code.js"
	// maxLogLines and maxLogChars cap console output per call.
	maxLogLines = 100
	maxLogChars = 1000
	// maxMessage caps error messages, which user code controls.
	maxMessage = 1000
)

// errTimedOut is the value the child interrupts goja with.
var errTimedOut = errors.New("time limit reached")

// wrapJS turns user code into the source of a function of `input`, and
// says how many lines were put in front of the user's first line.
func wrapJS(kind Kind, code string) (src string, offset int) {
	if kind == KindJSExpression {
		// The parentheses make `{a: 1}` an object literal, not a block.
		return "(function (input) {\nreturn (\n" + code + "\n);\n})", 2
	}
	return "(function (input) {\n" + code + "\n})", 1
}

func compileJS(kind Kind, code string) (*goja.Program, *Error) {
	src, offset := wrapJS(kind, code)
	// Parsing separately keeps the position goja.Compile drops.
	ast, err := parser.ParseFile(nil, jsFile, src, 0)
	if err == nil {
		var prg *goja.Program
		if prg, err = goja.CompileAST(ast, false); err == nil {
			return prg, nil
		}
	}
	e := &Error{Kind: ErrKindSyntax, Message: err.Error()}
	var list parser.ErrorList
	var se *goja.CompilerSyntaxError
	switch {
	case errors.As(err, &list) && len(list) > 0:
		e.Message = list[0].Message
		e.Line, e.Column = userPos(list[0].Position.Line, list[0].Position.Column, offset, code)
	case errors.As(err, &se):
		e.Message = se.Message
		if se.File != nil {
			p := se.File.Position(se.Offset)
			e.Line, e.Column = userPos(p.Line, p.Column, offset, code)
		}
	}
	return nil, e
}

// userPos maps a position in the wrapped source to one in the user's code.
// Errors found in the wrapper's closing lines (an unclosed brace, an
// incomplete expression) are put just after the end of the user's code.
func userPos(line, col, offset int, code string) (int, int) {
	line -= offset
	last := strings.Count(code, "\n") + 1
	switch {
	case line < 1:
		return 1, 1
	case line > last:
		lastLine := code[strings.LastIndexByte(code, '\n')+1:]
		return last, utf8.RuneCountInString(lastLine) + 1
	}
	return line, col
}

// runJS runs one JS call in a fresh runtime: nothing survives from one call
// to the next, so prototype tampering only affects its own call.
func runJS(req wireRequest, timeout time.Duration) Result {
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallStack)
	// Armed before compiling: an interrupt that fires while no JS runs
	// stops the next Run call (goja's documented behaviour).
	timer := time.AfterFunc(timeout, func() { vm.Interrupt(errTimedOut) })
	defer timer.Stop()
	env, err := newJSEnv(vm)
	if err != nil {
		return Result{Error: errorf(ErrKindCrashed, "sandbox set-up: %v", err)}
	}
	out, uerr := env.run(req)
	if uerr != nil {
		if uerr.Kind == ErrKindTimeout {
			uerr.Message = fmt.Sprintf("the code ran longer than %v", timeout)
		}
		return Result{Logs: env.logs.result(), Error: uerr}
	}
	return Result{Output: out, Logs: env.logs.result()}
}

// jsEnv holds what the host needs from a runtime, taken before user code
// can replace it.
type jsEnv struct {
	vm        *goja.Runtime
	stringify goja.Callable
	parse     goja.Callable
	describe  goja.Callable
	logs      logSink
}

func newJSEnv(vm *goja.Runtime) (*jsEnv, error) {
	env := &jsEnv{vm: vm}
	json := vm.Get("JSON").ToObject(vm)
	stringify := json.Get("stringify")
	var ok1, ok2 bool
	env.stringify, ok1 = goja.AssertFunction(stringify)
	env.parse, ok2 = goja.AssertFunction(json.Get("parse"))
	if !ok1 || !ok2 {
		return nil, errors.New("JSON built-ins missing")
	}
	return env, env.installPrelude(stringify)
}

// prelude builds console and describe in JS so that formatting runs under
// the interrupt like any user code; only finished strings reach Go.
var prelude = goja.MustCompile("prelude.js", `(function (sink, stringify) {
	"use strict";
	function text(v) {
		if (typeof v === "string") return v;
		try {
			var s = stringify(v);
			if (s !== undefined) return s;
		} catch (e) {}
		return String(v);
	}
	function log() {
		var parts = [];
		for (var i = 0; i < arguments.length; i++) parts[i] = text(arguments[i]);
		sink(parts.join(" "));
	}
	function describe(e) {
		try {
			return String(e);
		} catch (e2) {
			return "uncaught exception";
		}
	}
	return [Object.freeze({log: log, info: log, warn: log, error: log, debug: log}), describe];
})`, false)

func (env *jsEnv) installPrelude(stringify goja.Value) error {
	mk, err := env.vm.RunProgram(prelude)
	if err != nil {
		return err
	}
	build, _ := goja.AssertFunction(mk)
	sink := env.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		env.logs.add(call.Argument(0))
		return goja.Undefined()
	})
	made, err := build(goja.Undefined(), sink, stringify)
	if err != nil {
		return err
	}
	parts := made.ToObject(env.vm)
	env.describe, _ = goja.AssertFunction(parts.Get("1"))
	return env.vm.GlobalObject().DefineDataProperty("console", parts.Get("0"),
		goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// run compiles and calls the user function, and exports its result as a
// JSON string made inside the VM, so no host object ever leaks out.
func (env *jsEnv) run(req wireRequest) (json.RawMessage, *Error) {
	prg, serr := compileJS(req.Kind, req.Code)
	if serr != nil {
		return nil, serr
	}
	_, offset := wrapJS(req.Kind, req.Code)
	input, err := env.parse(goja.Undefined(), env.vm.ToValue(string(inputOrNull(req.Input))))
	if err != nil {
		return nil, env.jsError(err, offset, req.Code)
	}
	fnv, err := env.vm.RunProgram(prg)
	if err != nil {
		return nil, env.jsError(err, offset, req.Code)
	}
	fn, _ := goja.AssertFunction(fnv)
	ret, err := fn(goja.Undefined(), input)
	if err != nil {
		return nil, env.jsError(err, offset, req.Code)
	}
	return env.export(ret, req.maxOutput(), offset, req.Code)
}

func (env *jsEnv) export(v goja.Value, maxOut, offset int, code string) (json.RawMessage, *Error) {
	s, err := env.stringify(goja.Undefined(), v)
	if err != nil {
		return nil, env.jsError(err, offset, code)
	}
	if goja.IsUndefined(s) {
		return json.RawMessage("null"), nil
	}
	// Check the length in UTF-16 units before copying the string out.
	if js, ok := s.(goja.String); ok && js.Length() > maxOut {
		return nil, tooLarge(js.Length(), maxOut)
	}
	out := s.String()
	if len(out) > maxOut {
		return nil, tooLarge(len(out), maxOut)
	}
	return json.RawMessage(out), nil
}

func tooLarge(n, limit int) *Error {
	return errorf(ErrKindOutputTooLarge, "the result is at least %d bytes, more than the limit of %d", n, limit)
}

// jsError turns what goja returned into a user-facing error.
func (env *jsEnv) jsError(err error, offset int, code string) *Error {
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	var ex *goja.Exception
	switch {
	case errors.As(err, &ie):
		return &Error{Kind: ErrKindTimeout, Message: "time limit reached"}
	case errors.As(err, &so):
		return errorf(ErrKindStackOverflow, "maximum call stack size (%d) exceeded", maxCallStack)
	case errors.As(err, &ex):
		e := &Error{Kind: ErrKindRuntime, Message: clip(env.exceptionText(ex))}
		e.Line, e.Column = userPosition(ex, offset, code)
		return e
	default:
		return &Error{Kind: ErrKindRuntime, Message: clip(err.Error())}
	}
}

// exceptionText formats a thrown value with the prelude's describe, a JS
// call that returns errors instead of panicking: Value.String on a thrown
// object would run a hostile toString from Go, where a throw is a panic.
func (env *jsEnv) exceptionText(ex *goja.Exception) string {
	if ex.Value() == nil {
		return "uncaught exception"
	}
	s, err := env.describe(goja.Undefined(), ex.Value())
	if err != nil {
		return "uncaught exception"
	}
	return s.String()
}

func userPosition(ex *goja.Exception, offset int, code string) (line, col int) {
	for _, f := range ex.Stack() {
		if f.SrcName() == jsFile {
			p := f.Position()
			return userPos(p.Line, p.Column, offset, code)
		}
	}
	return 0, 0
}

// clip shortens s to at most maxMessage bytes without splitting a rune.
func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	end := maxMessage
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// logSink keeps at most maxLogLines lines of console output.
type logSink struct {
	lines   []string
	dropped int
}

func (l *logSink) add(v goja.Value) {
	if len(l.lines) >= maxLogLines {
		l.dropped++
		return
	}
	s, ok := v.(goja.String)
	if !ok {
		l.lines = append(l.lines, "[not a string]")
		return
	}
	if s.Length() > maxLogChars {
		l.lines = append(l.lines, s.Substring(0, maxLogChars).String()+"…")
		return
	}
	l.lines = append(l.lines, s.String())
}

func (l *logSink) result() []string {
	lines := append([]string{}, l.lines...)
	if l.dropped > 0 {
		lines = append(lines, fmt.Sprintf("(%d more log lines dropped)", l.dropped))
	}
	return lines
}

func inputOrNull(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage("null")
	}
	return in
}
