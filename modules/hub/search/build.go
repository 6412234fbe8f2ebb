package search

import (
	"context"
	"maps"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// mark is where an index stands in the sequence: what a rebuild starts from.
type mark struct {
	hi   int64
	gaps map[int64]time.Time
}

// build reads the customer's whole index from the store. With from (a
// rebuild), it takes over the old index's position: everything at or below
// from.hi and not a gap had committed before the scan began, so the scan
// holds it, and the next catch-up reads the rest. Without (a cold start),
// it stands at the counter read before the scan, and the last numbers the
// scan did not show are gaps: they may have been in flight.
func (x *Index) build(ctx context.Context, from *mark) (*shard, error) {
	now := x.opts.Now()
	c, err := x.readSeq(ctx)
	if err != nil {
		return nil, err
	}
	sh := newShard(now)
	seen := map[int64]bool{}
	old := 0
	err = x.scan(ctx, func(r record) {
		sh.apply(r)
		if r.seq > c-coldWindow {
			seen[r.seq] = true
		}
		if r.deleted && now.Sub(r.at) > tombstoneTTL {
			old++
		}
	})
	if err != nil {
		return nil, err
	}
	sh.prefix.settle(sh.terms, true)
	sh.place(from, c, seen, now)
	if old > 0 {
		x.purgeTombstones(ctx, now)
	}
	return sh, nil
}

func (s *shard) place(from *mark, c int64, seen map[int64]bool, now time.Time) {
	if from != nil {
		s.hi, s.gaps = from.hi, maps.Clone(from.gaps)
		return
	}
	s.hi = c
	for q := max(1, c-coldWindow+1); q <= c; q++ {
		if !seen[q] {
			s.gaps[q] = now
		}
	}
}

// scan reads every search document of the customer but their text. The
// embedded store reads in pages of _id (it decodes the text too); a
// MongoDB server projects the text away itself, and FerretDB would scan
// the collection once per page.
func (x *Index) scan(ctx context.Context, fn func(record)) error {
	if x.st.Kind() != "sqlite" {
		return x.scanAll(ctx, store.FindOptions{Fields: x.fields()}, fn)
	}
	after := ""
	for {
		o := store.FindOptions{Sort: []store.SortField{{Field: "_id"}}, Limit: scanPage, Fields: x.fields()}
		if after != "" {
			o.Filter = query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: after}}}
		}
		last, n, err := x.scanOne(ctx, o, fn)
		if err != nil || n < scanPage {
			return err
		}
		after = last
	}
}

func (x *Index) scanAll(ctx context.Context, o store.FindOptions, fn func(record)) error {
	_, _, err := x.scanOne(ctx, o, fn)
	return err
}

func (x *Index) scanOne(ctx context.Context, o store.FindOptions, fn func(record)) (string, int, error) {
	docs, err := x.docs().Find(ctx, o)
	if err != nil || len(docs) == 0 {
		return "", 0, err
	}
	for _, d := range docs {
		if r, ok := decode(d); ok {
			fn(r)
		}
	}
	return str(docs[len(docs)-1]["_id"]), len(docs), nil
}

// purgeTombstones deletes old tombstones; best effort, the next rebuild
// tries again.
func (x *Index) purgeTombstones(ctx context.Context, now time.Time) {
	_, _ = x.docs().Delete(ctx, query.AllOf(query.Eq(fDeleted, true),
		query.Field{Path: fAt, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: now.Add(-tombstoneTTL).UTC()}}}))
}

// maybeRebuild starts a background rebuild when one is due: periodically,
// to bound staleness, or when dead slots pile up. Searches go on with the
// current index meanwhile.
func (x *Index) maybeRebuild(ctx context.Context, e *entry) {
	sh := e.sh
	due := x.opts.Now().Sub(sh.built) >= x.opts.RebuildEvery || sh.needsCompaction()
	if e.rebuilding || !due {
		return
	}
	e.rebuilding = true
	from := &mark{hi: sh.hi, gaps: maps.Clone(sh.gaps)}
	go x.rebuild(context.WithoutCancel(ctx), e, from)
}

func (x *Index) rebuild(ctx context.Context, e *entry, from *mark) {
	ctx, cancel := context.WithTimeout(ctx, rebuildTimeout)
	defer cancel()
	sh, err := x.build(ctx, from)
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	e.rebuilding = false
	if err != nil {
		e.sh.built = x.opts.Now() // try again a period later
		return
	}
	e.swap(sh)
}
