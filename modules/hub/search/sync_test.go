package search

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a settable Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestAnotherProcessesWritesAreSeenByTheNextSearch(t *testing.T) {
	st := newStore(t)
	reader, writer := newIndex(t, st, Options{}), newIndex(t, st, Options{})
	f := &fixture{t: t, st: st, x: reader}
	assert.Empty(t, f.ids(ctxA, "budget"), "the reader's cache is built")
	require.NoError(t, writer.Put(ctxA, page("b1", "Budget 2026", "Planning.")))
	assert.Equal(t, []string{"b1"}, f.ids(ctxA, "budget"))
	require.NoError(t, writer.Put(ctxA, page("b1", "Forecast 2026", "Planning.")))
	assert.Empty(t, f.ids(ctxA, "budget"))
	require.NoError(t, writer.Remove(ctxA, TypeWikiPage, "b1"))
	assert.Empty(t, f.ids(ctxA, "forecast"))
}

// A writer took seq 2, another took 3 and committed first: the reader
// sees 3, waits for 2 and picks it up when it lands.
func TestOutOfOrderCommitIsPickedUpLater(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA, page("p1", "First", "one"))
	late, err := f.x.nextSeq(ctxA)
	require.NoError(t, err)
	f.put(ctxA, page("p3", "Third", "three"))
	assert.Equal(t, []string{"p3"}, f.ids(ctxA, "third"))
	e := f.entry(ctxA)
	assert.Contains(t, e.sh.gaps, late, "the number not seen yet is a gap")

	f.commit(page("p2", "Second", "two"), late)
	assert.Equal(t, []string{"p2"}, f.ids(ctxA, "second"), "the late write is found")
	assert.Empty(t, e.sh.gaps)
}

func TestGapIsGivenUpAfterGraceAndRebuildCatchesUp(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st := newStore(t)
	f := &fixture{t: t, st: st, x: newIndex(t, st, Options{Now: c.now, GapGrace: time.Minute, RebuildEvery: 10 * time.Minute})}
	f.put(ctxA, page("p1", "First", "one"))
	lost, err := f.x.nextSeq(ctxA)
	require.NoError(t, err)
	f.put(ctxA, page("p3", "Third", "three"))
	f.ids(ctxA, "third")
	c.add(2 * time.Minute)
	f.ids(ctxA, "third")
	assert.Empty(t, f.entry(ctxA).sh.gaps, "given up after the grace period")

	f.commit(page("p2", "Second", "two"), lost) // a writer that stalled for minutes
	assert.Empty(t, f.ids(ctxA, "second"), "missed until the next rebuild")
	c.add(10 * time.Minute)
	f.ids(ctxA, "second") // starts the rebuild
	f.waitRebuilt(ctxA)
	assert.Equal(t, []string{"p2"}, f.ids(ctxA, "second"))
}

func TestOlderWriteCommittingLastDoesNotWin(t *testing.T) {
	f := newFixture(t)
	older, err := f.x.nextSeq(ctxA)
	require.NoError(t, err)
	f.put(ctxA, page("p", "Newer title", "new"))
	f.commit(page("p", "Older title", "old"), older)
	assert.Equal(t, []string{"p"}, f.ids(ctxA, "newer"))
	assert.Empty(t, f.ids(ctxA, "older"))
	fresh := &fixture{t: t, st: f.st, x: newIndex(t, f.st, Options{})}
	assert.Empty(t, fresh.ids(ctxA, "older"), "the store kept the newer version")

	// Nor does an older Put bring back a record removed later.
	older, err = f.x.nextSeq(ctxA)
	require.NoError(t, err)
	require.NoError(t, f.x.Remove(ctxA, TypeWikiPage, "p"))
	f.commit(page("p", "Zombie", "z"), older)
	assert.Empty(t, fresh.ids(ctxA, "zombie"))
}

func TestCustomersNeverSeeEachOthersDocuments(t *testing.T) {
	f := newFixture(t)
	ctxB := ctxOf("customer-b")
	f.put(ctxA, page("same-id", "Alpha secret", "only for a"))
	f.put(ctxB, page("same-id", "Beta secret", "only for b"))
	assert.Equal(t, []string{"same-id"}, f.ids(ctxA, "secret"))
	assert.Empty(t, f.ids(ctxA, "beta"), "through the shared cache")
	assert.Empty(t, f.ids(ctxB, "alpha"))
	hits := f.search(ctxB, Query{Q: "secret", Types: allTypes})
	require.Len(t, hits, 1)
	assert.Equal(t, "Beta secret", hits[0].Title)
	assert.Equal(t, []string{"<mark>only</mark> for b"}, f.search(ctxB, Query{Q: "only", Types: allTypes})[0].Snippets)
	require.NoError(t, f.x.Remove(ctxB, TypeWikiPage, "same-id"))
	assert.Equal(t, []string{"same-id"}, f.ids(ctxA, "alpha"), "b's removal leaves a's record")
	c, err := f.x.Candidates(ctxB, []string{"only"})
	require.NoError(t, err)
	assert.Empty(t, c)
}

func TestLeastRecentlyUsedCustomerIsDroppedAndRebuilt(t *testing.T) {
	st := newStore(t)
	f := &fixture{t: t, st: st, x: newIndex(t, st, Options{CacheBytes: 1})}
	ctxB := ctxOf("customer-b")
	f.put(ctxA, page("a", "Apples", "fruit"))
	f.put(ctxB, page("b", "Bananas", "fruit"))
	assert.Equal(t, []string{"a"}, f.ids(ctxA, "fruit"))
	assert.Equal(t, []string{"b"}, f.ids(ctxB, "fruit"))
	f.x.mu.Lock()
	assert.Len(t, f.x.entries, 1, "over budget: only the customer in use stays")
	f.x.mu.Unlock()
	assert.Equal(t, []string{"a"}, f.ids(ctxA, "fruit"))
}

// commit stores d with a sequence number taken earlier, as a slow writer would.
func (f *fixture) commit(d Doc, seq int64) {
	f.t.Helper()
	set := encode(d, time.Now().UTC())
	set[fSeq] = seq
	require.NoError(f.t, f.x.commit(ctxA, docKey("customer-a", d.Type, d.ID), seq, set, nil))
}

func (f *fixture) entry(ctx context.Context) *entry {
	e, err := f.x.entry(ctx)
	require.NoError(f.t, err)
	return e
}

func (f *fixture) waitRebuilt(ctx context.Context) {
	e := f.entry(ctx)
	require.Eventually(f.t, func() bool {
		e.syncMu.Lock()
		defer e.syncMu.Unlock()
		return !e.rebuilding
	}, 10*time.Second, 5*time.Millisecond)
}
