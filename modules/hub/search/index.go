package search

import (
	"container/list"
	"context"
	"sync"

	"platform/kernel/store"
	"platform/kernel/tenant"
)

// Index is the search service: the store it writes to and reads from,
// and this process's cache of customers' in-memory indexes.
type Index struct {
	st       store.Store
	opts     Options
	memTexts bool

	mu      sync.Mutex
	entries map[string]*entry // by customer
	lru     *list.List        // of *entry, most recently used first
	bytes   int64
}

// entry is one customer's cached index. syncMu serializes the reads that
// bring it up to date; mu guards the shard itself, so searches score in
// parallel while no update is being applied.
type entry struct {
	customer string
	elem     *list.Element

	syncMu     sync.Mutex
	rebuilding bool

	mu    sync.RWMutex
	sh    *shard
	bytes int64 // as last accounted in Index.bytes (under Index.mu)
}

// New returns an index over s.
func New(s store.Store, opts Options) *Index {
	f, ok := s.(interface{ FerretDB() bool })
	return &Index{st: s, opts: opts.withDefaults(), memTexts: opts.TextsInMemory || ok && f.FerretDB(),
		entries: map[string]*entry{}, lru: list.New()}
}

// fields are those an in-memory index is built from.
func (x *Index) fields() []string {
	if x.memTexts {
		return allFields
	}
	return metaFields
}

// EnsureIndexes declares the store indexes: seq, for reading what changed.
func (x *Index) EnsureIndexes(ctx context.Context) error {
	return x.st.EnsureIndexes(ctx, docsCollection, true, []store.Index{
		{Name: "seq", Keys: []store.SortField{{Field: fSeq}}},
	})
}

func (x *Index) docs() store.Collection { return x.st.Collection(docsCollection) }

// entry returns the customer's cache entry, marking it recently used.
func (x *Index) entry(ctx context.Context) (*entry, error) {
	c, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	e, ok := x.entries[c]
	if !ok {
		e = &entry{customer: c}
		e.elem = x.lru.PushFront(e)
		x.entries[c] = e
		return e, nil
	}
	x.lru.MoveToFront(e.elem)
	return e, nil
}

// account records e's new size and drops least recently used customers
// (never e) while the cache is over its budget.
func (x *Index) account(e *entry, size int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.entries[e.customer] != e {
		return // dropped meanwhile; its searches finish on what they hold
	}
	x.bytes += size - e.bytes
	e.bytes = size
	for el := x.lru.Back(); x.bytes > x.opts.CacheBytes && el != nil; {
		prev := el.Prev()
		if old := el.Value.(*entry); old != e {
			x.drop(old)
		}
		el = prev
	}
}

func (x *Index) drop(e *entry) {
	x.lru.Remove(e.elem)
	delete(x.entries, e.customer)
	x.bytes -= e.bytes
}
