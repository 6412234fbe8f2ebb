package sandbox

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	hostileLimit = 300 // ms: the wall-clock limit of each hostile call
	// margin is what a hostile call may take beyond its limit: the kill
	// grace (200 ms), killing and reaping, and a loaded 2-core machine.
	margin = 700 * time.Millisecond
)

type hostileCase struct {
	name string
	kind Kind
	code string
	// want lists the acceptable error kinds. Two are listed only where
	// the outcome is a race between the time and the memory limit.
	want      []string
	timeoutMs int // 0: hostileLimit
}

var hostileCases = []hostileCase{
	{"infinite loop", KindJSFunction, "while (true) {}", []string{ErrKindTimeout}, 0},
	{"infinite microtask loop", KindJSFunction,
		"(function f() { Promise.resolve().then(f) })(); return 1", []string{ErrKindTimeout}, 0},
	// A look-ahead makes goja use the backtracking engine, which ignores
	// the interrupt: only the kill stops it.
	{"catastrophic regex", KindJSFunction,
		"return /^(?=a)(a+)+$/.test('a'.repeat(40) + 'b')", []string{ErrKindTimeout}, 0},
	{"deep recursion", KindJSFunction,
		"function f(n) { return f(n + 1) + 1 } return f(0)", []string{ErrKindStackOverflow}, 0},
	{"recursion through built-ins", KindJSFunction,
		"function f() { return [0].map(f) } return f()", []string{ErrKindStackOverflow}, 0},
	// toJSON returns before JSON.stringify recurses in Go, so goja's call
	// stack stays flat: the interrupt or the Go stack limit ends it.
	{"recursive toJSON", KindJSFunction,
		"const o = { toJSON() { return [o] } }; return o", []string{ErrKindTimeout, ErrKindStackOverflow}, 0},
	// jsonata-go overflows the Go stack, a fatal error: the child dies.
	// The longer limit lets the overflow, not the clock, end it.
	{"deep recursion (JSONata)", KindJSONata,
		"($f := function($n) { $f($n + 1) + 1 }; $f(0))", []string{ErrKindStackOverflow}, 3000},
	{"huge range (JSONata)", KindJSONata,
		"$sum([1..10000000].($ * 2))", []string{ErrKindTimeout, ErrKindMemory}, 0},
	{"huge string", KindJSFunction, "return 'x'.repeat(2 ** 29).length", []string{ErrKindMemory}, 0},
	{"string doubling", KindJSFunction, "let s = 'x'; for (;;) s += s", []string{ErrKindMemory, ErrKindTimeout}, 0},
	{"huge typed array", KindJSFunction, "return new Float64Array(2 ** 28).length", []string{ErrKindMemory}, 0},
	// fill is a built-in: the interrupt does not stop it, the kill does.
	{"huge array", KindJSFunction, "return new Array(2 ** 28).fill(0).length", []string{ErrKindTimeout, ErrKindMemory}, 0},
	// The cap, not the clock, is under test: JSON.stringify of 2 MiB took
	// 0.45-1.2 s in a -race child on a loaded machine.
	{"huge output", KindJSFunction, "return 'x'.repeat(1024).repeat(1100)", []string{ErrKindOutputTooLarge}, 1500},
	{"huge output (JSONata)", KindJSONata, "$pad('', 2000000)", []string{ErrKindOutputTooLarge}, 0},
	{"deeply nested output", KindJSFunction,
		"let o = {}; for (let i = 0; i < 1e6; i++) o = { o }; return o", []string{ErrKindStackOverflow, ErrKindTimeout}, 0},
	// Parsing is recursive in both engines and not interruptible: 200 KB
	// of nested parentheses overflow the child's stack, or, when the
	// parser's frames grow faster than the stack, reach the child's memory
	// limit first (seen once in CI): either is a clean containment.
	{"deeply nested code", KindJSExpression, nested(100_000), []string{ErrKindStackOverflow, ErrKindSyntax, ErrKindMemory}, 3000},
	{"deeply nested code (JSONata)", KindJSONata, nested(100_000), []string{ErrKindStackOverflow, ErrKindSyntax}, 3000},
	{"log flood", KindJSFunction, "for (;;) console.log('x'.repeat(10000))", []string{ErrKindTimeout}, 0},
	{"hostile thrown value", KindJSFunction,
		"throw { toString() { while (true) {} } }", []string{ErrKindRuntime, ErrKindTimeout}, 0},
	{"throwing toJSON on Object.prototype", KindJSFunction,
		"Object.defineProperty(Object.prototype, 'toJSON', { get() { throw new Error('tampered') } }); return { a: 1 }",
		[]string{ErrKindRuntime}, 0},
}

func nested(n int) string {
	return strings.Repeat("(", n) + "1" + strings.Repeat(")", n)
}

// TestHostileCode runs each hostile call on a pool of two while normal
// calls keep going: each must end as a clean error of the expected kind
// within its limit plus the margin, the normal calls must all succeed
// meanwhile, and both children must serve afterwards.
func TestHostileCode(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 2})
	for _, c := range hostileCases {
		t.Run(c.name, func(t *testing.T) {
			limit := cmp.Or(c.timeoutMs, hostileLimit)
			req := Request{Kind: c.kind, Code: c.code, Input: []byte(`{}`), TimeoutMs: limit}
			res, took, served := runBesideNormalCalls(t, p, req)
			require.NotNil(t, res.Error, "hostile code succeeded: %s", res.Output)
			assert.Contains(t, c.want, res.Error.Kind, res.Error.Message)
			assert.LessOrEqual(t, took, time.Duration(limit)*time.Millisecond+margin)
			assert.LessOrEqual(t, len(res.Logs), maxLogLines+1)
			t.Logf("%-36s %-16s in %5d ms (limit %d ms), %d normal calls served meanwhile: %s",
				c.name, res.Error.Kind, took.Milliseconds(), limit, served, res.Error.Message)
			assertPoolServes(t, p)
		})
	}
}

// runBesideNormalCalls starts the hostile call and keeps making normal
// calls until it ends; every normal call must succeed, and promptly.
func runBesideNormalCalls(t *testing.T, p *Pool, req Request) (Result, time.Duration, int) {
	t.Helper()
	type outcome struct {
		res  Result
		err  error
		took time.Duration
	}
	hostile := make(chan outcome, 1)
	start := time.Now()
	go func() {
		res, err := p.Run(customer("hostile"), req)
		hostile <- outcome{res, err, time.Since(start)}
	}()
	served := 0
	for {
		normalStart := time.Now()
		res, err := p.Run(customer("normal"), Request{Kind: KindJSFunction, Code: "return { sum: input.a + input.b }", Input: []byte(`{"a":1,"b":2}`)})
		require.NoError(t, err)
		ok(t, res, `{"sum":3}`)
		assert.Less(t, time.Since(normalStart), time.Second, "a normal call waited behind the hostile one")
		served++
		select {
		case o := <-hostile:
			require.NoError(t, o.err)
			return o.res, o.took, served
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// assertPoolServes makes as many concurrent calls as the pool has
// children, each of another tenant (one may not hold them all): all
// succeed once killed children have been replaced.
func assertPoolServes(t *testing.T, p *Pool) {
	t.Helper()
	done := make(chan Result, p.opts.Size)
	for i := range p.opts.Size {
		go func() {
			res, err := p.Run(customer(fmt.Sprint("tenant-", i)), Request{Kind: KindJSExpression, Code: "[1, 2].map(x => x * 2)"})
			assert.NoError(t, err)
			done <- res
		}()
	}
	for range p.opts.Size {
		ok(t, <-done, `[2,4]`)
	}
}

// Nothing of the host is reachable: each attempt is a plain runtime error.
func TestNoHostAccess(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	for _, code := range []string{
		"return require('fs').readFileSync('/etc/passwd', 'utf8')",
		"return process.env",
		"process.exit(1)",
		"return fetch('http://127.0.0.1:8080/')",
		"setTimeout(() => {}, 1)",
		"return new XMLHttpRequest()",
		"return Function('return process')().env",
		"return console.log.constructor('return require')()('child_process')",
		"return this.constructor.constructor('return process')().mainModule",
		"return Java.type('java.lang.Runtime')",
	} {
		res := run(t, p, KindJSFunction, code, `{}`)
		require.NotNil(t, res.Error, code)
		assert.Equal(t, ErrKindRuntime, res.Error.Kind, code)
		assert.Contains(t, res.Error.Message, "ReferenceError", code)
	}
	res := run(t, p, KindJSFunction, "import('fs')", `{}`)
	require.NotNil(t, res.Error)

	// The global object holds the ECMAScript built-ins, console and
	// nothing else.
	res = run(t, p, KindJSFunction, "return Object.getOwnPropertyNames(globalThis)", `{}`)
	require.Nil(t, res.Error)
	for _, host := range []string{"require", "process", "module", "exports", "fetch", "setTimeout",
		"setInterval", "setImmediate", "queueMicrotask", "XMLHttpRequest", "WebSocket", "Deno", "Bun"} {
		assert.NotContains(t, string(res.Output), `"`+host+`"`)
	}
	assert.Contains(t, string(res.Output), `"console"`)
	// JSONata has no way out either.
	res = run(t, p, KindJSONata, `$eval("1")`, `{}`)
	require.NotNil(t, res.Error)
}

// Tampering with built-ins only affects its own call: the host's JSON
// functions were taken before user code ran, and every call starts from
// a fresh runtime (a pool of one proves the child is the same).
func TestPrototypeTamperingDoesNotLeak(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	res := run(t, p, KindJSFunction, `
		JSON.stringify = () => '"owned"';
		JSON.parse = () => ({ owned: true });
		Object.prototype.polluted = 1;
		Array.prototype.push = null;
		Object.freeze(Object.prototype);
		console.log = () => { throw new Error('x') };
		return { a: input.a }`, `{"a":1}`)
	ok(t, res, `{"a":1}`)
	res = run(t, p, KindJSFunction, `
		console.log('still here');
		return [typeof Object.prototype.polluted, typeof Array.prototype.push, Object.isFrozen(Object.prototype), JSON.stringify({ b: 2 })]`,
		`{}`)
	ok(t, res, `["undefined","function",false,"{\"b\":2}"]`)
	assert.Equal(t, []string{"still here"}, res.Logs)
}

// A child whose heap grew past half the budget asks to be replaced, so
// the next call gets the whole budget back (Go keeps address space it
// has reserved, and the rlimit counts it).
func TestBigButLegalCallRecyclesTheChild(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against the limit")
	}
	before := pids(p)
	ok(t, run(t, p, KindJSExpression, "'x'.repeat(1e6).length", ``), `1000000`)
	assert.Equal(t, before, pids(p), "a small call keeps the child")
	ok(t, run(t, p, KindJSExpression, "new Uint8Array(150e6).length", ``), `150000000`)
	ok(t, run(t, p, KindJSExpression, "1", ``), `1`) // waits for the replacement
	after := pids(p)
	assert.Len(t, after, 1)
	assert.NotEqual(t, before, after, "a big call retires the child")
	ok(t, run(t, p, KindJSExpression, "new Uint8Array(150e6).length", ``), `150000000`)
}

func pids(p *Pool) []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []int
	for c := range p.live {
		ids = append(ids, c.cmd.Process.Pid)
	}
	slices.Sort(ids)
	return ids
}

// TestPlatformBinary runs a few hostile cases through the real
// `platform sandbox` when SANDBOX_PLATFORM_BIN names a built binary
// (go build -o bin/platform ./cmd/platform): the tests above use the test
// binary as the child, which links far less.
func TestPlatformBinary(t *testing.T) {
	bin := os.Getenv("SANDBOX_PLATFORM_BIN")
	if bin == "" {
		t.Skip("SANDBOX_PLATFORM_BIN is not set")
	}
	p, err := NewPool(PoolOptions{Command: []string{bin, "sandbox"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	for _, c := range hostileCases {
		if !slices.Contains([]string{"infinite loop", "catastrophic regex", "deep recursion (JSONata)",
			"huge string", "huge output"}, c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			limit := cmp.Or(c.timeoutMs, hostileLimit)
			req := Request{Kind: c.kind, Code: c.code, TimeoutMs: limit}
			res, took, served := runBesideNormalCalls(t, p, req)
			require.NotNil(t, res.Error)
			assert.Contains(t, c.want, res.Error.Kind, res.Error.Message)
			assert.LessOrEqual(t, took, time.Duration(limit)*time.Millisecond+margin)
			t.Logf("%-28s %-16s in %5d ms, %d normal calls meanwhile", c.name, res.Error.Kind, took.Milliseconds(), served)
			assertPoolServes(t, p)
		})
	}
}
