package mongostore

import (
	"context"
	"fmt"
	"time"

	"platform/kernel/store"
)

// writeTimeout bounds a write run past its caller's cancellation (see
// write): long enough for any single-document operation of a loaded
// server, short enough that a hung server does not hold writers forever.
const writeTimeout = 30 * time.Second

// write runs op, one write operation, so that its answer tells whether it
// took effect: a caller already gone does not start it, and once started
// it runs with ctx's values but not its cancellation, since the driver
// reports the cancellation of an operation the server may have applied.
// Past writeTimeout the outcome is unknown, and the error says so.
func (s *Store) write(ctx context.Context, op func(ctx context.Context) error) error {
	if err := s.at(store.WriteStart, ctx, ctx.Err()); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	err := s.at(store.WriteCommitted, wctx, op(wctx))
	if wctx.Err() != nil && err != nil {
		return fmt.Errorf("%w: no answer within %s, the write may or may not have taken effect: %v", store.ErrUnavailable, writeTimeout, err)
	}
	if err == nil {
		s.at(store.WriteDone, ctx, nil)
	}
	return err
}

// SetWriteHook installs h, called at each point of every write (nil:
// none). For fault-injection tests only.
func (s *Store) SetWriteHook(h store.WriteHook) {
	if h == nil {
		s.hook.Store(nil)
		return
	}
	s.hook.Store(&h)
}

// at passes a write's step to the test hook, if any.
func (s *Store) at(p store.WritePoint, ctx context.Context, err error) error {
	if h := s.hook.Load(); h != nil {
		return (*h)(p, ctx, err)
	}
	return err
}

// lockWrites serializes read-modify-write operations on FerretDB (see
// Store.ferret); on MongoDB it does nothing. A caller whose ctx ends while
// it waits gives up its place.
func (s *Store) lockWrites(ctx context.Context, coll string) (unlock func(), err error) {
	if !s.ferret {
		return func() {}, nil
	}
	l, _ := s.locks.LoadOrStore(coll, make(chan struct{}, 1))
	turn := l.(chan struct{})
	select {
	case turn <- struct{}{}:
		return func() { <-turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
