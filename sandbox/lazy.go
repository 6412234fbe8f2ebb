package sandbox

import (
	"context"
	"sync"
)

// Lazy is a Pool started on first use, so a process that never runs user
// code starts no children. A failed start is retried by the next call.
type Lazy struct {
	opts PoolOptions
	mu   sync.Mutex
	pool *Pool
	shut bool
}

// NewLazy returns a pool with opts that starts on the first call.
func NewLazy(opts PoolOptions) *Lazy { return &Lazy{opts: opts} }

func (l *Lazy) get() (*Pool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shut {
		return nil, ErrClosed
	}
	if l.pool == nil {
		p, err := NewPool(l.opts)
		if err != nil {
			return nil, err
		}
		l.pool = p
	}
	return l.pool, nil
}

// Run is Pool.Run.
func (l *Lazy) Run(ctx context.Context, req Request) (Result, error) {
	p, err := l.get()
	if err != nil {
		return Result{}, err
	}
	return p.Run(ctx, req)
}

// Compile is Pool.Compile.
func (l *Lazy) Compile(ctx context.Context, kind Kind, code string) (*Error, error) {
	p, err := l.get()
	if err != nil {
		return nil, err
	}
	return p.Compile(ctx, kind, code)
}

// Close stops the children, if any were started.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shut = true
	if l.pool == nil {
		return nil
	}
	return l.pool.Close()
}
