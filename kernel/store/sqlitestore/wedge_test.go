package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/store/storetest"
)

// A writer connection found inside a transaction (as a cancelled BEGIN used
// to leave it) costs one failed write, not every write until a restart.
func TestWriterFoundInTransactionIsRolledBack(t *testing.T) {
	s := openTemp(t)
	c := s.Collection("things")
	insertOK(t, c, "before")
	if _, err := s.wconn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_ = c.Insert(ctxA, store.Doc{"_id": "meets-the-open-transaction"})
	insertOK(t, c, "after")
}

// A ROLLBACK that fails leaves the connection's state unknown: it is
// replaced, with the statements prepared on it, and writes go on.
func TestWriterInUnknownStateIsReplaced(t *testing.T) {
	s := openTemp(t)
	c := s.Collection("things")
	insertOK(t, c, "before")
	old := s.wconn
	broken := errors.New("injected failure")
	s.SetWriteHook(func(p store.WritePoint, _ context.Context, err error) error {
		if p == store.WriteWork || p == store.WriteRolledBack {
			return broken
		}
		return err
	})
	if err := c.Insert(ctxA, store.Doc{"_id": "lost"}); !errors.Is(err, broken) {
		t.Fatalf("insert with a failing statement: %v", err)
	}
	s.SetWriteHook(nil)
	if s.wconn == old {
		t.Fatal("the writer connection was kept after its ROLLBACK failed")
	}
	insertOK(t, c, "after")
	if _, err := c.Update(ctxA, query.ID("after"), store.Update{Set: store.Doc{"n": int64(1)}}); err != nil {
		t.Fatalf("update on the new connection: %v", err)
	}
	docs, err := c.Find(ctxA, store.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(docs); !slices.Equal(got, []string{"before", "after"}) {
		t.Errorf("documents after the replacement: %v", got)
	}
}

// A write that does not commit leaves no shape behind in memory: else the
// next document of that shape would not record it in the file, and after
// a restart filters on the path would compile as if it held no arrays.
func TestUncommittedWriteLeavesNoShapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := openAt(t, path)
	c := s.Collection("things")
	insertOK(t, c, "plain")
	s.SetWriteHook(storetest.At(store.WriteCommit, func(context.Context, error) error { return errors.New("injected") }))
	if err := c.Insert(ctxA, store.Doc{"_id": "failed", "tags": []any{"x"}}); err == nil {
		t.Fatal("the faulted insert succeeded")
	}
	s.SetWriteHook(nil)
	if err := c.Insert(ctxA, store.Doc{"_id": "tagged", "tags": []any{"y"}}); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())

	s = openAt(t, path)
	docs, err := s.Collection("things").Find(ctxA, store.FindOptions{Filter: query.Eq("tags", "y")})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(docs); !slices.Equal(got, []string{"tagged"}) {
		t.Errorf("tags = y after a restart found %v, want [tagged]", got)
	}
}

// EnsureIndexes that does not commit keeps the declarations in force, so
// duplicates are still named by the index that exists.
func TestUncommittedEnsureIndexesKeepsDeclarations(t *testing.T) {
	s := openTemp(t)
	byEmail := store.Index{Name: "email", Keys: []store.SortField{{Field: "email"}}, Unique: true}
	if err := s.EnsureIndexes(ctxA, "people", true, []store.Index{byEmail}); err != nil {
		t.Fatal(err)
	}
	changed := byEmail
	changed.Keys = []store.SortField{{Field: "email"}, {Field: "brand"}}
	s.SetWriteHook(storetest.At(store.WriteCommit, func(context.Context, error) error { return errors.New("injected") }))
	if err := s.EnsureIndexes(ctxA, "people", true, []store.Index{changed}); err == nil {
		t.Fatal("the faulted EnsureIndexes succeeded")
	}
	s.SetWriteHook(nil)
	c := s.Collection("people")
	insertOK(t, c, "a", "email", "a@example.com")
	err := c.Insert(ctxA, store.Doc{"_id": "b", "email": "a@example.com"})
	var d *store.DuplicateError
	if !errors.As(err, &d) || !slices.Equal(d.Fields, []string{"email"}) {
		t.Errorf("duplicate email: %v, want a DuplicateError on [email]", err)
	}
}

// Ping proves the write path: a writer that never gives its turn back
// fails it, and it passes once the writer is free.
func TestPingFailsWhileTheWriterIsStuck(t *testing.T) {
	s := openTemp(t)
	s.writeTurn <- struct{}{} // a write that does not end
	ctx, cancel := context.WithTimeout(ctxA, time.Second)
	defer cancel()
	if err := s.Ping(ctx); err == nil {
		t.Error("ping passed while no write could run")
	}
	<-s.writeTurn
	if err := s.Ping(ctxA); err != nil {
		t.Errorf("ping with a free writer: %v", err)
	}
}

// The driver, not a hook: writes whose contexts end at random moments,
// the moments included where the driver reports a cancellation of a
// statement that took effect. Every answer is honest, and writes go on.
// (Timing-dependent: the deterministic cases are the contract's
// WriteFaults; this one checks the real driver agrees.)
func TestRandomCancellationsLeaveHonestAnswers(t *testing.T) {
	s := openTemp(t)
	c := s.Collection("things")
	insertOK(t, c, "warm")
	const writers, each = 8, 150
	var mu sync.Mutex
	answers := map[string]error{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprintf("w%d-%d", w, i)
				ctx, cancel := context.WithTimeout(ctxA, time.Duration(rand.IntN(400))*time.Microsecond)
				err := c.Insert(ctx, store.Doc{"_id": id, "tags": []any{"t"}})
				cancel()
				mu.Lock()
				answers[id] = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	insertOK(t, c, "after")
	failed := 0
	for id, err := range answers {
		_, gerr := c.Get(ctxA, id)
		if gerr != nil && !errors.Is(gerr, store.ErrNotFound) {
			t.Fatal(gerr)
		}
		if (gerr == nil) != (err == nil) {
			t.Errorf("insert %s answered %v, stored = %v", id, err, gerr == nil)
		}
		if err != nil {
			failed++
		}
	}
	t.Logf("%d of %d inserts cancelled", failed, len(answers))
}

func insertOK(t *testing.T, c store.Collection, id string, kv ...string) {
	t.Helper()
	d := store.Doc{"_id": id}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i]] = kv[i+1]
	}
	if err := c.Insert(ctxA, d); err != nil {
		t.Fatalf("insert %s: %v", id, err)
	}
}
