package groupcommit

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/kernel/store/sqlitestore"
)

// gatedLane is an Inserter over a real store whose batch writes start
// only when the test lets them, announcing each batch first.
type gatedLane struct {
	in      *Inserter
	coll    store.Collection
	batches chan []store.Doc
	gate    chan struct{}
}

func newGatedLane(t *testing.T) *gatedLane {
	st, err := sqlitestore.Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	g := &gatedLane{coll: st.Global("docs"), batches: make(chan []store.Doc, 4), gate: make(chan struct{})}
	g.in = &Inserter{InsertMany: func(ctx context.Context, _ string, docs []store.Doc) error {
		g.batches <- append([]store.Doc(nil), docs...)
		<-g.gate
		return g.coll.InsertMany(ctx, docs)
	}}
	return g
}

// insert starts an Insert of a document with that id; its answer arrives
// on the channel.
func (g *gatedLane) insert(ctx context.Context, id string) <-chan error {
	out := make(chan error, 1)
	go func() { out <- g.in.Insert(ctx, "lane", store.Doc{"_id": id}) }()
	return out
}

// waitQueued waits until the lane's next batch holds n documents.
func (g *gatedLane) waitQueued(t *testing.T, n int) {
	t.Helper()
	l := g.in.laneOf("lane")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		l.mu.Lock()
		queued := 0
		if l.next != nil {
			queued = len(l.next.docs)
		}
		l.mu.Unlock()
		if queued == n {
			return
		}
	}
	t.Fatalf("the next batch never held %d documents", n)
}

func (g *gatedLane) stored(t *testing.T, id string) bool {
	t.Helper()
	_, err := g.coll.Get(context.Background(), id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func answer(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
		return nil
	}
}

// A caller whose context ends while its batch is being written waits for
// the batch's outcome: its document is written, so it answers nil.
func TestCancelledCallerOfABatchBeingWrittenGetsItsOutcome(t *testing.T) {
	g := newGatedLane(t)
	first := g.insert(context.Background(), "a0")
	<-g.batches // [a0] is being written; the next batch waits for it
	second := g.insert(context.Background(), "a1")
	g.waitQueued(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiter := g.insert(ctx, "b")
	g.waitQueued(t, 2)
	g.gate <- struct{}{} // [a0] written
	<-g.batches          // [a1 b] is being written
	cancel()
	var early error
	select {
	case early = <-waiter: // the wrong answer, before the outcome exists
	case <-time.After(200 * time.Millisecond):
	}
	close(g.gate)
	if answer(t, first) != nil || answer(t, second) != nil {
		t.Fatal("the other callers failed")
	}
	err := early
	if err == nil {
		err = answer(t, waiter)
	}
	if stored := g.stored(t, "b"); err != nil || !stored {
		t.Errorf("cancelled while its batch was written: answered %v, stored = %v; want nil and stored", err, stored)
	}
}

// A caller whose context ends while its batch still waits takes its
// document out: it answers the cancellation, and the document is not
// written.
func TestCancelledCallerOfAWaitingBatchLeavesIt(t *testing.T) {
	g := newGatedLane(t)
	first := g.insert(context.Background(), "a0")
	<-g.batches
	second := g.insert(context.Background(), "a1")
	g.waitQueued(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	waiter := g.insert(ctx, "b")
	g.waitQueued(t, 2)
	cancel()
	if err := answer(t, waiter); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while its batch waited: answered %v", err)
	}
	close(g.gate)
	if answer(t, first) != nil || answer(t, second) != nil {
		t.Error("the other callers failed")
	}
	if got := <-g.batches; len(got) != 1 || got[0]["_id"] != "a1" {
		t.Errorf("the second batch wrote %v, want only a1", got)
	}
	if g.stored(t, "b") {
		t.Error("a document whose caller answered context.Canceled was written")
	}
}
