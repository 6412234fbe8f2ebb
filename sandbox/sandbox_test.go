package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childEnv turns the test binary into a sandbox child, so the tests need
// neither the platform binary nor a build step.
const childEnv = "SANDBOX_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := ServeChild(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func newPool(t *testing.T, opts PoolOptions) *Pool {
	t.Helper()
	opts.Command = []string{os.Args[0], "-test.run=^$"}
	opts.Env = append(opts.Env, childEnv+"=1")
	p, err := NewPool(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func run(t *testing.T, p *Pool, kind Kind, code, input string) Result {
	t.Helper()
	res, err := p.Run(context.Background(), Request{Kind: kind, Code: code, Input: json.RawMessage(input)})
	require.NoError(t, err)
	return res
}

func ok(t *testing.T, res Result, want string) {
	t.Helper()
	require.Nil(t, res.Error, "unexpected error")
	assert.JSONEq(t, want, string(res.Output))
}

func TestHappyPaths(t *testing.T) {
	p := newPool(t, PoolOptions{})
	cases := []struct {
		name, code, input, want string
		kind                    Kind
	}{
		{"function", "return { sum: input.a + input.b }", `{"a":1,"b":2}`, `{"sum":3}`, KindJSFunction},
		{"function without return", "input.a = 2", `{"a":1}`, `null`, KindJSFunction},
		{"function using ES6", "const [x, ...rest] = input; return rest.map(v => v * x)", `[2,1,3]`, `[2,6]`, KindJSFunction},
		{"expression", "input.items.length * 2", `{"items":[1,2,3]}`, `6`, KindJSExpression},
		{"expression object literal", "{ n: input.x }", `{"x":"y"}`, `{"n":"y"}`, KindJSExpression},
		{"no input is null", "input === null", ``, `true`, KindJSExpression},
		{"jsonata", "$sum(items.price)", `{"items":[{"price":2},{"price":3.5}]}`, `5.5`, KindJSONata},
		{"jsonata object", `{"names": items.name}`, `{"items":[{"name":"a<b"},{"name":"c"}]}`, `{"names":["a<b","c"]}`, KindJSONata},
		{"jsonata no match", "missing.field", `{"a":1}`, `null`, KindJSONata},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, p, c.kind, c.code, c.input)
			ok(t, res, c.want)
			assert.NotNil(t, res.Logs)
			assert.Greater(t, res.DurationMs, 0.0)
		})
	}
}

func TestLogsAreCapturedAndCapped(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	res := run(t, p, KindJSFunction, `console.log("a", {b: 1}, 2, undefined); console.error("e"); return 1`, `null`)
	ok(t, res, `1`)
	assert.Equal(t, []string{`a {"b":1} 2 undefined`, "e"}, res.Logs)

	res = run(t, p, KindJSFunction, `for (let i = 0; i < 150; i++) console.log("x".repeat(5000)); return 1`, `null`)
	ok(t, res, `1`)
	require.Len(t, res.Logs, maxLogLines+1)
	assert.Len(t, []rune(res.Logs[0]), maxLogChars+1) // plus the ellipsis
	assert.Equal(t, "(50 more log lines dropped)", res.Logs[maxLogLines])
}

func TestSyntaxErrorsHaveLineAndColumn(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	cases := []struct {
		name       string
		kind       Kind
		code       string
		line, col  int
		msgPattern string
	}{
		{"js function", KindJSFunction, "const a = 1;\nreturn a +* 2;", 2, 11, "Unexpected token"},
		{"js unclosed brace", KindJSFunction, "if (input) {\n  return 1;", 2, 12, ""},
		{"js expression", KindJSExpression, "input.a +", 1, 10, ""},
		{"jsonata", KindJSONata, "$sum(items.price)\n  + (1", 2, 0, ""},
		{"jsonata first line", KindJSONata, "a.b.]", 1, 5, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check := func(e *Error) {
				t.Helper()
				require.NotNil(t, e)
				assert.Equal(t, ErrKindSyntax, e.Kind)
				assert.Equal(t, c.line, e.Line, e.Message)
				if c.col > 0 {
					assert.Equal(t, c.col, e.Column, e.Message)
				} else {
					assert.Positive(t, e.Column, e.Message)
				}
				assert.Contains(t, e.Message, c.msgPattern)
			}
			check(Compile(c.kind, c.code))
			e, err := p.Compile(context.Background(), c.kind, c.code)
			require.NoError(t, err)
			check(e)
			check(run(t, p, c.kind, c.code, `{}`).Error)
		})
	}
	e, err := p.Compile(context.Background(), KindJSFunction, "return input")
	require.NoError(t, err)
	assert.Nil(t, e)
}

func TestRuntimeErrors(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	res := run(t, p, KindJSFunction, "const x = 1;\n  throw new TypeError('boom ' + x);", `null`)
	require.NotNil(t, res.Error)
	assert.Equal(t, Error{Kind: ErrKindRuntime, Message: "TypeError: boom 1", Line: 2, Column: 9}, *res.Error)

	res = run(t, p, KindJSFunction, "return input.a.b", `{}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, ErrKindRuntime, res.Error.Kind)
	assert.Contains(t, res.Error.Message, "TypeError")

	res = run(t, p, KindJSFunction, "const o = {}; o.self = o; return o", `null`)
	require.NotNil(t, res.Error)
	assert.Equal(t, ErrKindRuntime, res.Error.Kind, "circular output is not JSON")

	res = run(t, p, KindJSONata, `$number("abc") + $undefinedFunction()`, `{}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, ErrKindRuntime, res.Error.Kind)
}

func TestRequestLimits(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1, MaxInputBytes: 100, MaxCodeBytes: 50, MaxOutputBytes: 1000})
	big := `"` + strings.Repeat("x", 200) + `"`
	assert.Equal(t, ErrKindInputTooLarge, run(t, p, KindJSExpression, "input", big).Error.Kind)
	assert.Equal(t, ErrKindInputTooLarge, run(t, p, KindJSExpression, strings.Repeat(" ", 51)+"1", `1`).Error.Kind)
	assert.Equal(t, ErrKindInvalidRequest, run(t, p, KindJSExpression, "input", `{nope`).Error.Kind)
	assert.Equal(t, ErrKindInvalidRequest, run(t, p, "python", "1", `1`).Error.Kind)
	assert.Equal(t, ErrKindOutputTooLarge, run(t, p, KindJSExpression, "'x'.repeat(1001)", `1`).Error.Kind)
	assert.Equal(t, ErrKindOutputTooLarge, run(t, p, KindJSONata, "$pad('', 1001)", `1`).Error.Kind)
	ok(t, run(t, p, KindJSExpression, "'x'.repeat(10)", `1`), `"xxxxxxxxxx"`)
}

// Two calls that each take 300 ms finish together well under 600 ms:
// concurrent calls (of two tenants: one may hold only one of the two
// children) run in different children.
func TestConcurrentCallsUseDifferentChildren(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 2})
	// Each call is busy for 2 s of wall-clock time however slowly it is
	// scheduled: in turn they take 4 s, side by side 2 s plus start-up,
	// which leaves a loaded machine 1.5 s of margin.
	busy := Request{Kind: KindJSFunction, Code: `const end = Date.now() + 2000; while (Date.now() < end) {} return 1`, TimeoutMs: 10000}
	start := time.Now()
	var wg sync.WaitGroup
	for _, id := range []string{"tenant-a", "tenant-b"} {
		wg.Go(func() {
			res, err := p.Run(customer(id), busy)
			assert.NoError(t, err)
			ok(t, res, `1`)
		})
	}
	wg.Wait()
	assert.Less(t, time.Since(start), 3500*time.Millisecond, "the calls ran side by side")
}

func TestContextCancelKillsTheCall(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Run(ctx, Request{Kind: KindJSFunction, Code: "while (true) {}", TimeoutMs: 10000})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), time.Second)
	ok(t, run(t, p, KindJSExpression, "1 + 1", ``), `2`) // replaced
}

func TestClose(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(context.Background(), Request{Kind: KindJSFunction, Code: "while (true) {}", TimeoutMs: 10000})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, p.Close())
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrClosed)
	case <-time.After(2 * time.Second):
		t.Fatal("a call in flight did not end with Close")
	}
	_, err := p.Run(context.Background(), Request{Kind: KindJSExpression, Code: "1"})
	assert.ErrorIs(t, err, ErrClosed)
}

// ServeChild speaks newline-delimited JSON; driven in-process here, with
// no limits applied since EnvMemoryLimit is unset.
func TestServeChildProtocol(t *testing.T) {
	var in bytes.Buffer
	for _, r := range []wireRequest{
		{Request: Request{Kind: KindJSFunction, Code: "return input * 2", Input: json.RawMessage("21")}},
		{Request: Request{Kind: KindJSONata, Code: "a"}, Op: "compile"},
	} {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		in.Write(append(b, '\n'))
	}
	var out bytes.Buffer
	require.NoError(t, ServeChild(&in, &out))
	dec := json.NewDecoder(&out)
	var res []wireResult
	for {
		var r wireResult
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		res = append(res, r)
	}
	require.Len(t, res, 2)
	assert.JSONEq(t, `42`, string(res[0].Output))
	assert.Nil(t, res[1].Error)
}

// BenchmarkRun measures a small call's round trip through the pool.
func BenchmarkRun(b *testing.B) {
	opts := PoolOptions{Command: []string{os.Args[0], "-test.run=^$"}, Env: []string{childEnv + "=1"}}
	p, err := NewPool(opts)
	require.NoError(b, err)
	defer p.Close()
	for _, kind := range []Kind{KindJSFunction, KindJSONata} {
		code := map[Kind]string{KindJSFunction: "return { sum: input.a + input.b }", KindJSONata: "{ 'sum': a + b }"}[kind]
		b.Run(string(kind), func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					res, err := p.Run(context.Background(), Request{Kind: kind, Code: code, Input: json.RawMessage(`{"a":1,"b":2}`)})
					if err != nil || res.Error != nil {
						b.Fatal(err, res.Error)
					}
				}
			})
		})
	}
}
