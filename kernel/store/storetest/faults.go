package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"platform/kernel/store"
)

// Hookable is a store that lets tests act at each point of its writes.
// Every implementation must be one: the fault cases of the contract use it.
type Hookable interface {
	SetWriteHook(store.WriteHook)
}

var writePoints = []struct {
	name string
	p    store.WritePoint
}{
	{"Start", store.WriteStart},
	{"Begun", store.WriteBegun},
	{"Work", store.WriteWork},
	{"Commit", store.WriteCommit},
	{"Committed", store.WriteCommitted},
	{"Done", store.WriteDone},
	{"RolledBack", store.WriteRolledBack},
}

// At returns a hook that runs act the first time a write reaches p; act
// gets the context the step ran with and its error, and returns the error
// the store goes on with.
func At(p store.WritePoint, act func(ctx context.Context, err error) error) store.WriteHook {
	fired := false
	return func(at store.WritePoint, ctx context.Context, err error) error {
		if at != p || fired {
			return err
		}
		fired = true
		return act(ctx, err)
	}
}

// CancelAt returns a hook that cancels a write's context at p, as a client
// that goes away there does, and then answers as drivers answer when the
// context a step ran with ends while it runs: with the context's error,
// whether or not the step took effect (modernc.org/sqlite's stmt.exec
// reports ctx.Err() once its watcher saw ctx end; the MongoDB driver
// reports the cancellation of an operation the server may have applied).
// A store that runs a step with a context its callers cannot cancel gets
// the step's true answer.
func CancelAt(p store.WritePoint, cancel context.CancelFunc) store.WriteHook {
	return At(p, cancelling(cancel))
}

func cancelling(cancel context.CancelFunc) func(ctx context.Context, err error) error {
	return func(ctx context.Context, err error) error {
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
}

func hookable(t *testing.T, s store.Store) Hookable {
	t.Helper()
	h, ok := s.(Hookable)
	if !ok {
		t.Fatalf("%T has no SetWriteHook: the contract's fault cases need it", s)
	}
	t.Cleanup(func() { h.SetWriteHook(nil) })
	return h
}

// faultedWrite is one write done with a fault at one point, and what the
// store answered.
type faultedWrite struct {
	err      error
	panicked bool
	fired    bool // the store reached the point
}

// runFaulted runs write with act installed at p, recovering a panic.
func runFaulted(h Hookable, p store.WritePoint, act func(ctx context.Context, err error) error, write func() error) (fw faultedWrite) {
	h.SetWriteHook(At(p, func(ctx context.Context, err error) error {
		fw.fired = true
		return act(ctx, err)
	}))
	defer h.SetWriteHook(nil)
	defer func() {
		if r := recover(); r != nil {
			fw.panicked = true
		}
	}()
	fw.err = write()
	return fw
}

// Whatever happens at whichever point of a write (the caller's context
// cancelled, a driver error, a panic), the next write succeeds, and the
// answer of the faulted write says whether it took effect.
func testWriteFaults(t *testing.T, s store.Store) {
	h := hookable(t, s)
	// The collections exist first: the faults hit writes of documents, not
	// the creation of a collection (a write too, on SQLite).
	for _, name := range []string{"faults", "faultcounters"} {
		insert(t, ctxA, s.Collection(name), store.Doc{"_id": "warm-up"})
	}
	for _, wp := range writePoints {
		t.Run(wp.name, func(t *testing.T) {
			t.Run("Cancel", func(t *testing.T) { faultCancel(t, s, h, wp.p) })
			t.Run("DriverError", func(t *testing.T) { faultError(t, s, h, wp.p) })
			t.Run("Panic", func(t *testing.T) { faultPanic(t, s, h, wp.p) })
		})
	}
}

// faultCancel: an insert and a counter increment whose context is cancelled
// at p answer nil exactly when they took effect.
func faultCancel(t *testing.T, s store.Store, h Hookable, p store.WritePoint) {
	c := s.Collection("faults")
	id := fmt.Sprintf("cancel-%d", p)
	ctx, cancel := context.WithCancel(ctxA)
	defer cancel()
	fw := runFaulted(h, p, cancelling(cancel), func() error { return c.Insert(ctx, store.Doc{"_id": id}) })
	wantHonest(t, c, id, fw.err)
	wantNextWrite(t, c, id)

	counter := s.Collection("faultcounters")
	before := counterValue(t, counter, id)
	ctx, cancel = context.WithCancel(ctxA)
	defer cancel()
	fw = runFaulted(h, p, cancelling(cancel), func() error {
		_, err := counter.Upsert(ctx, id, store.Update{Inc: map[string]any{"n": int64(1)}})
		return err
	})
	after := counterValue(t, counter, id)
	if (fw.err == nil) != (after == before+1) || after > before+1 {
		t.Errorf("increment cancelled at %d answered %v, and the counter went from %d to %d", p, fw.err, before, after)
	}
	wantNextWrite(t, counter, id)
}

// faultError: a driver error at p fails the write, except once it has
// taken effect; an error injected into the commit's answer is not checked
// for honesty (it would be the driver that lies).
func faultError(t *testing.T, s store.Store, h Hookable, p store.WritePoint) {
	c := s.Collection("faults")
	id := fmt.Sprintf("error-%d", p)
	injected := errors.New("injected driver failure")
	fw := runFaulted(h, p, func(context.Context, error) error { return injected }, func() error { return c.Insert(ctxA, store.Doc{"_id": id}) })
	if p != store.WriteCommitted {
		wantHonest(t, c, id, fw.err)
	}
	if fw.fired && p < store.WriteCommitted && !errors.Is(fw.err, injected) {
		t.Errorf("a driver error at %d answered %v", p, fw.err)
	}
	wantNextWrite(t, c, id)
}

// faultPanic: a panic at p reaches the caller; the write took effect only
// if the panic came after its commit, and the next write succeeds.
func faultPanic(t *testing.T, s store.Store, h Hookable, p store.WritePoint) {
	c := s.Collection("faults")
	id := fmt.Sprintf("panic-%d", p)
	fw := runFaulted(h, p, func(context.Context, error) error { panic("injected panic") }, func() error { return c.Insert(ctxA, store.Doc{"_id": id}) })
	switch {
	case !fw.panicked:
		wantHonest(t, c, id, fw.err) // the store never reaches p
	case p < store.WriteCommitted:
		wantHonest(t, c, id, errors.New("panicked before the commit"))
	case p == store.WriteDone:
		wantHonest(t, c, id, nil)
	}
	wantNextWrite(t, c, id)
}

// wantHonest: the document is stored exactly when the write answered nil.
func wantHonest(t *testing.T, c store.Collection, id string, err error) {
	t.Helper()
	_, gerr := c.Get(ctxA, id)
	stored := gerr == nil
	if gerr != nil && !errors.Is(gerr, store.ErrNotFound) {
		t.Fatalf("read back %s: %v", id, gerr)
	}
	if stored != (err == nil) {
		t.Errorf("write of %s answered %v, but stored = %v", id, err, stored)
	}
}

// wantNextWrite: a plain write after the faulted one succeeds and is read back.
func wantNextWrite(t *testing.T, c store.Collection, id string) {
	t.Helper()
	next := id + "-next"
	if _, err := c.Upsert(ctxA, next, store.Update{Inc: map[string]any{"n": int64(1)}}); err != nil {
		t.Fatalf("the write after a fault failed: %v", err)
	}
	if _, err := c.Get(ctxA, next); err != nil {
		t.Fatalf("the write after a fault is not there: %v", err)
	}
}

func counterValue(t *testing.T, c store.Collection, id string) int64 {
	t.Helper()
	d, err := c.Get(ctxA, id)
	if errors.Is(err, store.ErrNotFound) {
		return 0
	}
	if err != nil {
		t.Fatalf("read counter %s: %v", id, err)
	}
	return store.Int(d["n"])
}

// testPingProvesWrites: a store whose writes fail is not healthy, although
// it reads; once writes work again, Ping passes.
func testPingProvesWrites(t *testing.T, s store.Store) {
	h := hookable(t, s)
	if err := s.Ping(ctxA); err != nil {
		t.Fatalf("ping of a healthy store: %v", err)
	}
	broken := errors.New("every write fails")
	h.SetWriteHook(func(store.WritePoint, context.Context, error) error { return broken })
	if err := s.Ping(ctxA); err == nil {
		t.Errorf("ping passed while every write failed")
	}
	h.SetWriteHook(nil)
	if err := s.Ping(ctxA); err != nil {
		t.Errorf("ping once writes work again: %v", err)
	}
}
