package resource

import (
	"context"

	"platform/kernel/query"
	"platform/kernel/store"
)

// What a list's total is (meta.totalRelation, docs/counts.md).
const (
	TotalExact   = "eq"  // the total is the number of matching records
	TotalAtLeast = "gte" // more records match; the total is the cap
)

// DefaultCountCap is how many matches a filtered count counts at most
// when Service.CountCap is not set (PLATFORM_COUNT_CAP).
const DefaultCountCap = 10_000

// count totals a list without reading the whole collection: an unfiltered
// list (no filter, no parent, no read restriction) reads the counter the
// store keeps; a filtered one counts at most the cap, so its cost is
// bounded by the cap rather than by the collection.
func (s *Service) count(ctx context.Context, coll store.Collection, filter query.Expr) (int64, string, error) {
	if filter == nil {
		n, err := coll.CountAll(ctx)
		return n, TotalExact, err
	}
	limit := s.countCap()
	n, err := coll.CountUpTo(ctx, filter, limit+1)
	if n > limit {
		return limit, TotalAtLeast, err
	}
	return n, TotalExact, err
}

func (s *Service) countCap() int64 {
	if s.CountCap > 0 {
		return s.CountCap
	}
	return DefaultCountCap
}
