package search

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/test/infra"
)

// The store of this run: PLATFORM_TEST_STORE=sqlite for the embedded one,
// the MongoDB-wire server otherwise (./test/with-infra.sh starts FerretDB),
// as the other store-backed packages run once per store.
func newStore(t testing.TB) store.Store {
	t.Helper()
	return infra.NewStore(t, "")
}

func ctxOf(customer string) context.Context {
	return tenant.WithCustomer(context.Background(), customer)
}

var ctxA = ctxOf("customer-a")

// newIndex is an index over st with its store indexes declared.
func newIndex(t testing.TB, st store.Store, opts Options) *Index {
	t.Helper()
	x := New(st, opts)
	require.NoError(t, x.EnsureIndexes(ctxA))
	return x
}

// fixture is an index on a fresh store, with a few helpers.
type fixture struct {
	t  *testing.T
	st store.Store
	x  *Index
}

func newFixture(t *testing.T) *fixture {
	st := newStore(t)
	return &fixture{t: t, st: st, x: newIndex(t, st, Options{})}
}

func (f *fixture) put(ctx context.Context, docs ...Doc) {
	f.t.Helper()
	for _, d := range docs {
		require.NoError(f.t, f.x.Put(ctx, d))
	}
}

var allTypes = []string{TypeWikiPage, TypeFAQ, TypeGlossary}

// ids searches q over every type as an editor and returns the hit ids.
func (f *fixture) ids(ctx context.Context, q string) []string {
	f.t.Helper()
	return hitIDs(f.search(ctx, Query{Q: q, Types: allTypes, Unpublished: true}))
}

func (f *fixture) search(ctx context.Context, q Query) []Hit {
	f.t.Helper()
	hits, err := f.x.Search(ctx, q)
	require.NoError(f.t, err)
	return hits
}

func hitIDs(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func page(id, title, text string) Doc {
	return Doc{Type: TypeWikiPage, ID: id, Title: title, Text: text, KB: "handbook", Published: true}
}
