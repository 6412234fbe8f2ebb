package search

import (
	"context"
	"sort"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

const (
	// maxGaps bounds the numbers waited for: a burst of superseded writes
	// leaves many that never appear, and the periodic rebuild covers any
	// given up on.
	maxGaps = 256
	// coldWindow: a fresh index cannot know which numbers below the counter
	// were still in flight while it scanned; the last ones are waited for.
	coldWindow = 64
	// scanPage is the page of a rebuild on the embedded store, which
	// decodes whole documents, text included, before projecting them.
	scanPage = 2000
	// tombstoneTTL: every cache has rebuilt or seen a tombstone long before.
	tombstoneTTL   = time.Hour
	rebuildTimeout = 5 * time.Minute
)

// current returns the customer's index, brought up to date with the store.
func (x *Index) current(ctx context.Context) (*entry, error) {
	e, err := x.entry(ctx)
	if err != nil {
		return nil, err
	}
	return e, x.sync(ctx, e)
}

func (x *Index) sync(ctx context.Context, e *entry) error {
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	if e.sh == nil {
		sh, err := x.build(ctx, nil)
		if err != nil {
			return err
		}
		e.swap(sh)
	} else if err := x.catchUp(ctx, e); err != nil {
		return err
	}
	x.maybeRebuild(ctx, e)
	x.account(e, e.sh.bytes)
	return nil
}

func (e *entry) swap(sh *shard) {
	e.mu.Lock()
	e.sh = sh
	e.mu.Unlock()
}

// catchUp applies what was written since the last sync: nothing to read
// but the counter when it has not moved and no gap is open.
func (x *Index) catchUp(ctx context.Context, e *entry) error {
	sh := e.sh
	c, err := x.readSeq(ctx)
	if err != nil {
		return err
	}
	if c <= sh.hi && len(sh.gaps) == 0 {
		return nil
	}
	recs, err := x.changes(ctx, sh.hi, sh.gapList())
	if err != nil {
		return err
	}
	e.mu.Lock()
	sh.advance(recs, c, x.opts.Now(), x.opts.GapGrace)
	e.mu.Unlock()
	return nil
}

// changes reads the documents numbered above hi and, while numbers below
// it are awaited, above the lowest of them: one range on the seq index.
// (An $in of the gaps is a scan on the embedded store: 100 ms at 10,000
// pages while a page saved again and again leaves superseded numbers.)
// Documents read again are skipped by apply, which keeps the newest.
func (x *Index) changes(ctx context.Context, hi int64, gaps []any) ([]record, error) {
	from := hi
	for _, q := range gaps {
		from = min(from, q.(int64)-1)
	}
	return x.find(ctx, query.Field{Path: fSeq, Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: from}}})
}

func (x *Index) find(ctx context.Context, f query.Expr) ([]record, error) {
	docs, err := x.docs().Find(ctx, store.FindOptions{Filter: f, Fields: x.fields()})
	if err != nil {
		return nil, err
	}
	recs := make([]record, 0, len(docs))
	for _, d := range docs {
		if r, ok := decode(d); ok {
			recs = append(recs, r)
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].seq < recs[j].seq })
	return recs, nil
}

func (s *shard) gapList() []any {
	out := make([]any, 0, len(s.gaps))
	for q := range s.gaps {
		out = append(out, q)
	}
	return out
}

// advance applies recs read after the counter showed c: numbers up to c
// not among them are gaps from now on.
func (s *shard) advance(recs []record, c int64, now time.Time, grace time.Duration) {
	seen := make(map[int64]bool, len(recs))
	for _, r := range recs {
		s.apply(r)
		seen[r.seq] = true
		delete(s.gaps, r.seq)
	}
	for q := max(s.hi+1, c-maxGaps+1); q <= c; q++ {
		if !seen[q] {
			s.gaps[q] = now
		}
	}
	s.hi = max(s.hi, c)
	s.expireGaps(now, grace)
	s.prefix.settle(s.terms, false)
}

// expireGaps gives up on numbers waited for longer than grace, and on the
// oldest beyond maxGaps.
func (s *shard) expireGaps(now time.Time, grace time.Duration) {
	for q, since := range s.gaps {
		if now.Sub(since) > grace {
			delete(s.gaps, q)
		}
	}
	if len(s.gaps) <= maxGaps {
		return
	}
	qs := s.gapList()
	sort.Slice(qs, func(i, j int) bool { return qs[i].(int64) < qs[j].(int64) })
	for _, q := range qs[:len(qs)-maxGaps] {
		delete(s.gaps, q.(int64))
	}
}
