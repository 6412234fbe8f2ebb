package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"time"
)

const (
	// EnvMemoryLimit carries the pool's memory limit (bytes) to the child,
	// which applies it to itself before serving: os/exec has no rlimit.
	EnvMemoryLimit = "PLATFORM_SANDBOX_MEMORY"
	// maxStack is the child's Go stack limit: jsonata-go recursion dies
	// with a fatal stack overflow, and a small stack makes that happen in
	// a quarter of a second instead of after filling 1 GB (measured:
	// 16 MiB still allows a JSONata recursion 20,000 calls deep).
	maxStack = 16 << 20
	// maxRequest only protects the child from a broken parent: the pool
	// caps input and code far below it.
	maxRequest     = 64 << 20
	defaultTimeout = time.Second
	defaultMaxIO   = 1 << 20
)

// wireRequest is a Request plus what the pool tells the child about it.
type wireRequest struct {
	Request
	Op             string `json:"op,omitempty"` // "compile" or empty (run)
	MaxOutputBytes int    `json:"maxOutputBytes,omitempty"`
}

func (r wireRequest) maxOutput() int {
	if r.MaxOutputBytes > 0 {
		return r.MaxOutputBytes
	}
	return defaultMaxIO
}

func (r wireRequest) timeout() time.Duration {
	if r.TimeoutMs > 0 {
		return time.Duration(r.TimeoutMs) * time.Millisecond
	}
	return defaultTimeout
}

// wireResult is a Result plus what the child tells the pool about itself.
type wireResult struct {
	Result
	// Recycle asks the pool to replace this child: its heap grew so much
	// that the address-space limit left for the next call is too small
	// (Go never returns address space it has reserved).
	Recycle bool `json:"recycle,omitempty"`
}

// ServeChild is the sandbox child: it answers newline-delimited JSON
// requests (Request plus "op" and "maxOutputBytes") read from in with one
// JSON Result per line on out, one call at a time, until in ends. When
// EnvMemoryLimit is set it first limits its own memory and stack; the Pool
// always sets it.
func ServeChild(in io.Reader, out io.Writer) error {
	lim, err := applyLimitsFromEnv()
	if err != nil {
		return err
	}
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for {
		line, err := readLine(r, maxRequest)
		if errors.Is(err, io.EOF) {
			return nil // the pool closed our stdin: shut down
		}
		if err != nil {
			return fmt.Errorf("sandbox: reading request: %w", err)
		}
		var req wireRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("sandbox: bad request: %w", err)
		}
		res := wireResult{Result: handle(req)}
		res.Recycle = lim.exhausted()
		if err := enc.Encode(res); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// handle runs one request. A Go panic in an engine must not end the child
// with a half-written answer, so it becomes an error result.
func handle(req wireRequest) (res Result) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res = Result{Error: errorf(ErrKindRuntime, "the engine failed: %v", p)}
		}
		if res.Logs == nil {
			res.Logs = []string{}
		}
		res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	}()
	if req.Op == "compile" {
		if e := Compile(req.Kind, req.Code); e != nil {
			return Result{Error: e}
		}
		return Result{Output: json.RawMessage("null")}
	}
	switch req.Kind {
	case KindJSFunction, KindJSExpression:
		return runJS(req, req.timeout())
	case KindJSONata:
		return runJSONata(req)
	default:
		return Result{Error: errorf(ErrKindInvalidRequest, "unknown kind %q", req.Kind)}
	}
}

// readLine reads one '\n'-terminated line of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, fmt.Errorf("line longer than %d bytes", max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// limits is what the child knows about its own memory budget.
type limits struct {
	base, memory int64 // address space at start-up, allowed growth
}

// exhausted reports whether less than half of the memory budget is left.
func (l limits) exhausted() bool {
	if l.memory == 0 {
		return false
	}
	size, err := addressSpace()
	return err == nil && size-l.base > l.memory/2
}

// applyLimitsFromEnv caps the child's address space at what it has now
// plus the pool's memory limit: a Go process reserves about 1.2 GB of
// address space at start-up (measured), so an absolute RLIMIT_AS of
// 256 MiB would stop the runtime from allocating at all. Reservations
// only grow with use, so the growth bounds the memory user code can take;
// going over is a fatal "out of memory" that the pool reports as memory.
func applyLimitsFromEnv() (limits, error) {
	s := os.Getenv(EnvMemoryLimit)
	if s == "" {
		return limits{}, nil
	}
	mem, err := strconv.ParseInt(s, 10, 64)
	if err != nil || mem <= 0 {
		return limits{}, fmt.Errorf("sandbox: %s=%q is not a number of bytes", EnvMemoryLimit, s)
	}
	debug.SetMaxStack(maxStack)
	// The soft limit makes the GC work harder before the hard wall, so
	// legitimate large calls survive.
	debug.SetMemoryLimit(mem * 3 / 4)
	base, err := addressSpace()
	if err != nil {
		return limits{}, err
	}
	if err := setAddressSpaceLimit(uint64(base + mem)); err != nil {
		return limits{}, fmt.Errorf("sandbox: setting the memory limit: %w", err)
	}
	return limits{base: base, memory: mem}, nil
}
