package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrClosed is returned by calls on a closed Pool.
var ErrClosed = errors.New("sandbox: pool closed")

// PoolOptions configures a Pool. Zero values mean the defaults.
type PoolOptions struct {
	// Command starts a child, e.g. []string{os.Args[0], "sandbox"}.
	Command []string
	// Env is added to the child's environment (after the parent's).
	Env []string
	// Size is the number of children kept running (default 2).
	Size int
	// MemoryLimit is how much memory (address space, bytes) a child may
	// take beyond what it had at start-up (default 256 MiB).
	MemoryLimit int64
	// MaxInputBytes caps Request.Input, MaxOutputBytes the result's JSON
	// (default 1 MiB each); MaxCodeBytes caps Request.Code (default 256 KiB).
	MaxInputBytes, MaxOutputBytes, MaxCodeBytes int
	// DefaultTimeout applies when Request.TimeoutMs is 0 (default 1 s);
	// MaxTimeout caps what a request may ask for (default 30 s).
	DefaultTimeout, MaxTimeout time.Duration
	// KillGrace is how long after the time limit a child that has not
	// answered is killed (default 200 ms): the child interrupts JS itself
	// at the limit; the kill is for what ignores the interrupt.
	KillGrace time.Duration
	// QueueTimeout is how long a call waits for a child before it fails
	// with ErrBusy (default 5 s): a saturated pool answers "try later"
	// instead of piling up callers.
	QueueTimeout time.Duration
	// PerTenant is how many children the calls of one customer (see
	// tenant.Customer) may hold at once (default Size-1, at least 1), so
	// that one customer's slow code always leaves a child to the others.
	PerTenant int
}

func (o *PoolOptions) setDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Size, 2)
	def(&o.MaxInputBytes, defaultMaxIO)
	def(&o.MaxOutputBytes, defaultMaxIO)
	def(&o.MaxCodeBytes, 256<<10)
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = 256 << 20
	}
	defDur(&o.DefaultTimeout, defaultTimeout)
	defDur(&o.MaxTimeout, 30*time.Second)
	defDur(&o.KillGrace, 200*time.Millisecond)
	defDur(&o.QueueTimeout, 5*time.Second)
	def(&o.PerTenant, max(1, o.Size-1))
}

// compileTimeout bounds Pool.Compile: parsing hostile code can be slow.
const compileTimeout = 5 * time.Second

// Pool keeps Size sandbox children and runs each call in one of them.
// Concurrent calls use different children; a child that was killed or
// died is replaced in the background. Calls wait for a child in their
// customer's lane (see lanes), at most QueueTimeout.
type Pool struct {
	opts  PoolOptions
	lanes *lanes
	// idle holds one token per slot: a ready child, or nil for a slot
	// whose child must be started by the next caller.
	idle   chan *proc
	done   chan struct{} // closed by Close
	mu     sync.Mutex
	live   map[*proc]struct{}
	closed bool
	wg     sync.WaitGroup // refills in flight
}

// NewPool starts the children, so that a bad Command fails here.
func NewPool(opts PoolOptions) (*Pool, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("sandbox: PoolOptions.Command is empty")
	}
	opts.setDefaults()
	p := &Pool{opts: opts, lanes: newLanes(opts.Size, opts.PerTenant), idle: make(chan *proc, opts.Size),
		done: make(chan struct{}), live: map[*proc]struct{}{}}
	for range opts.Size {
		c, err := p.start()
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("sandbox: starting a child: %w", err)
		}
		p.idle <- c
	}
	return p, nil
}

// Run runs one call. User-code failures, including time-outs, crashes and
// memory exhaustion, are Result.Error; the error return is for the pool
// itself (closed, ctx done, a child that cannot start, ErrBusy).
func (p *Pool) Run(ctx context.Context, req Request) (Result, error) {
	if e := p.check(req); e != nil {
		return Result{Logs: []string{}, Error: e}, nil
	}
	if len(req.Input) == 0 {
		req.Input = json.RawMessage("null")
	}
	limit := p.timeout(req.TimeoutMs)
	req.TimeoutMs = int(limit / time.Millisecond)
	return p.do(ctx, wireRequest{Request: req, MaxOutputBytes: p.opts.MaxOutputBytes}, limit)
}

// Compile checks code in a child (see the package-level Compile for why
// not here). It returns nil when the code compiles, else why not: a
// syntax error with line and column, or stack_overflow, memory or timeout
// for code the parser cannot take (deeply nested, huge).
func (p *Pool) Compile(ctx context.Context, kind Kind, code string) (*Error, error) {
	if len(code) > p.opts.MaxCodeBytes {
		return p.codeTooLarge(code), nil
	}
	req := wireRequest{Request: Request{Kind: kind, Code: code}, Op: "compile"}
	res, err := p.do(ctx, req, compileTimeout)
	return res.Error, err
}

func (p *Pool) check(req Request) *Error {
	switch {
	case len(req.Code) > p.opts.MaxCodeBytes:
		return p.codeTooLarge(req.Code)
	case len(req.Input) > p.opts.MaxInputBytes:
		return errorf(ErrKindInputTooLarge, "the input is %d bytes, more than the limit of %d",
			len(req.Input), p.opts.MaxInputBytes)
	case len(req.Input) > 0 && !json.Valid(req.Input):
		// encoding/json also rejects nesting deeper than 10,000, which
		// the child's recursive parsers could not take.
		return errorf(ErrKindInvalidRequest, "the input is not valid JSON")
	case req.Kind != KindJSFunction && req.Kind != KindJSExpression && req.Kind != KindJSONata:
		return errorf(ErrKindInvalidRequest, "unknown kind %q", req.Kind)
	}
	return nil
}

func (p *Pool) codeTooLarge(code string) *Error {
	return errorf(ErrKindInputTooLarge, "the code is %d bytes, more than the limit of %d",
		len(code), p.opts.MaxCodeBytes)
}

func (p *Pool) timeout(ms int) time.Duration {
	if ms <= 0 {
		return p.opts.DefaultTimeout
	}
	return min(time.Duration(ms)*time.Millisecond, p.opts.MaxTimeout)
}

// do runs a request on an idle child, killing it at limit plus grace.
// A slot of the caller's lane comes first: slots are as many as idle
// tokens, so a call holding one finds a token at once, or as soon as a
// replacement child has started.
func (p *Pool) do(ctx context.Context, req wireRequest, limit time.Duration) (Result, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return Result{}, err
	}
	lane := laneOf(ctx)
	if err := p.lanes.enter(ctx, lane, p.opts.QueueTimeout, p.done); err != nil {
		return Result{}, err
	}
	defer p.lanes.leave(lane)
	c, err := p.acquire(ctx)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	// Logs are at most 100 lines of 1,000 characters, each up to 6 bytes
	// once escaped: 1 MiB over the output bounds any honest answer.
	res, keep, err := c.call(ctx, append(line, '\n'), limit+p.opts.KillGrace, p.opts.MaxOutputBytes+1<<20)
	p.release(c, keep)
	if p.isClosed() && !keep {
		return Result{}, ErrClosed // the child died because Close killed it
	}
	if err != nil {
		return Result{}, err
	}
	return p.finish(res.Result, start, limit), nil
}

// finish fills in what a killed child could not say itself.
func (p *Pool) finish(res Result, start time.Time, limit time.Duration) Result {
	if res.Logs == nil {
		res.Logs = []string{}
	}
	if res.Error != nil && res.Error.Kind == ErrKindTimeout && res.Error.Message == "" {
		res.Error.Message = fmt.Sprintf("the code ran longer than %v and was stopped", limit)
	}
	if res.Error != nil && res.Error.Kind == ErrKindMemory {
		res.Error.Message = fmt.Sprintf("the code used more than %d MiB of memory", p.opts.MemoryLimit>>20)
	}
	if res.DurationMs == 0 {
		res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	}
	return res
}

// acquire takes a slot and makes sure it has a live child.
func (p *Pool) acquire(ctx context.Context) (*proc, error) {
	select {
	case c := <-p.idle:
		if c != nil && c.alive() {
			return c, nil
		}
		if c != nil {
			p.forget(c)
		}
		c, err := p.start()
		if err != nil {
			p.idle <- nil // keep the slot; the next caller retries
			return nil, err
		}
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.done:
		return nil, ErrClosed
	}
}

// release gives the slot back; a child that must not be reused is killed
// and replaced in the background, so the next caller does not wait for a
// start-up if it can be helped.
func (p *Pool) release(c *proc, keep bool) {
	if keep && !p.isClosed() {
		p.idle <- c
		return
	}
	c.kill()
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.live, c)
	if p.closed {
		p.idle <- nil
		return
	}
	// Added under the lock that Close takes before waiting.
	p.wg.Add(1)
	go p.refill()
}

func (p *Pool) refill() {
	defer p.wg.Done()
	c, err := p.start()
	if err != nil {
		c = nil // the next caller starts it and sees the error
	}
	p.idle <- c
}

// start starts a child and registers it, unless the pool is closed.
func (p *Pool) start() (*proc, error) {
	if p.isClosed() {
		return nil, ErrClosed
	}
	c, err := startProc(p.opts)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		go c.kill()
		return nil, ErrClosed
	}
	p.live[c] = struct{}{}
	return c, nil
}

func (p *Pool) forget(c *proc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.live, c)
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Close kills every child. Calls in flight return ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	procs := make([]*proc, 0, len(p.live))
	for c := range p.live {
		procs = append(procs, c)
	}
	p.mu.Unlock()
	for _, c := range procs {
		c.kill()
	}
	p.wg.Wait()
	return nil
}
