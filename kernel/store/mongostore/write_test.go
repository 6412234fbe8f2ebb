package mongostore_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/store/storetest"
	"platform/kernel/tenant"
)

// On FerretDB, updates of one collection take turns (see Store.ferret): a
// caller that goes away while it waits for its turn leaves the queue at
// once rather than when the writes before it end.
func TestCancelledWriterLeavesTheCollectionQueue(t *testing.T) {
	s := openForTest(t)
	if !s.FerretDB() {
		t.Skip("updates take turns on FerretDB only")
	}
	ctxA := tenant.WithCustomer(context.Background(), "customer-a")
	c := s.Collection("queued")
	if err := c.Insert(ctxA, store.Doc{"_id": "x", "n": int64(0)}); err != nil {
		t.Fatal(err)
	}
	inc := store.Update{Inc: map[string]any{"n": int64(1)}}
	entered, release := make(chan struct{}), make(chan struct{})
	s.SetWriteHook(storetest.At(store.WriteStart, func(_ context.Context, err error) error {
		close(entered)
		<-release // a slow write holding the turn
		return err
	}))
	first := make(chan error, 1)
	go func() { _, err := c.Update(ctxA, query.ID("x"), inc); first <- err }()
	<-entered
	s.SetWriteHook(nil)

	ctx, cancel := context.WithCancel(ctxA)
	waiter := make(chan error, 1)
	go func() { _, err := c.Update(ctx, query.ID("x"), inc); waiter <- err }()
	cancel()
	select {
	case err := <-waiter:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled waiter answered %v", err)
		}
	case <-time.After(10 * time.Second): // generous: it should return at once
		t.Error("a cancelled writer waited for the turn of the write before it")
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	d, err := c.Get(ctxA, "x")
	if err != nil || store.Int(d["n"]) != 1 {
		t.Errorf("after one increment and one cancelled: %v, %v", d, err)
	}
}

func openForTest(t *testing.T) *mongostore.Store {
	t.Helper()
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		t.Skip("MONGODB_URI is not set")
	}
	return openStore(t, uri, "write_"+randomHex())
}

// EnsureIndexes that fails (here: its caller went away) leaves the
// declarations of the indexes that exist in force, so duplicates are
// still named by them.
func TestFailedEnsureIndexesKeepsDeclarations(t *testing.T) {
	s := openForTest(t)
	ctxA := tenant.WithCustomer(context.Background(), "customer-a")
	byEmail := store.Index{Name: "email", Keys: []store.SortField{{Field: "email"}}, Unique: true}
	if err := s.EnsureIndexes(ctxA, "people", true, []store.Index{byEmail}); err != nil {
		t.Fatal(err)
	}
	changed := byEmail
	changed.Keys = []store.SortField{{Field: "email"}, {Field: "brand"}}
	gone, cancel := context.WithCancel(ctxA)
	cancel()
	if err := s.EnsureIndexes(gone, "people", true, []store.Index{changed}); err == nil {
		t.Fatal("EnsureIndexes with a cancelled context succeeded")
	}
	c := s.Collection("people")
	if err := c.Insert(ctxA, store.Doc{"_id": "a", "email": "a@example.com"}); err != nil {
		t.Fatal(err)
	}
	err := c.Insert(ctxA, store.Doc{"_id": "b", "email": "a@example.com"})
	var d *store.DuplicateError
	if !errors.As(err, &d) || d.Index != "email" || len(d.Fields) != 1 {
		t.Errorf("duplicate email: %#v, want a DuplicateError of index email on [email]", err)
	}
}
