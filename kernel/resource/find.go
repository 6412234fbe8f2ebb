package resource

import (
	"context"
	"slices"

	"platform/kernel/query"
	"platform/kernel/store"
)

// ListQuery selects, orders and pages records (a list call, a db step).
type ListQuery struct {
	Filter query.Expr // declared filterable fields only (query.Parse with the resource)
	Where  query.Expr // an extra condition the caller adds (a sub-resource's key)
	Sort   []store.SortField
	Fields []string // projection; nil: whole records
	Limit  int      // records per page
	Page   int      // 1-based
	Count  bool     // also count the matches (see Service.count)
}

// Page is one page of a list.
type Page struct {
	Records []store.Doc
	HasNext bool
	Total   *int64 // when asked
	// TotalRelation says what Total is: TotalExact, or TotalAtLeast when
	// more records match than a filtered count counts (Service.CountCap).
	TotalRelation string
}

// Find lists the records of r matching q that the caller may see.
func (s *Service) Find(ctx context.Context, r *Resource, q ListQuery) (*Page, error) {
	filter := query.AllOf(q.Filter, q.Where, readFilter(ctx, r))
	page := max(q.Page, 1)
	sort := q.Sort
	if sort == nil {
		sort = r.DefaultSort
	}
	coll := r.Collection(s.Store)
	docs, err := coll.Find(ctx, store.FindOptions{
		Filter: filter, Sort: orderBy(r.SortFirst, sort), Skip: int64((page - 1) * q.Limit), Limit: int64(q.Limit + 1),
		Fields: storedFields(r, q.Fields),
	})
	if err != nil {
		return nil, storeError(err, r)
	}
	out := &Page{HasNext: len(docs) > q.Limit}
	if out.HasNext {
		docs = docs[:q.Limit]
	}
	out.Records = make([]store.Doc, len(docs))
	for i, d := range docs {
		out.Records[i] = Present(r, d, q.Fields)
	}
	if q.Count {
		n, rel, err := s.count(ctx, coll, filter)
		if err != nil {
			return nil, storeError(err, r)
		}
		out.Total, out.TotalRelation = &n, rel
	}
	return out, nil
}

// orderBy is the sort of a list: first the resource's leading keys, then
// the requested ones except those already leading (a store rejects a sort
// naming one field twice).
func orderBy(first, requested []store.SortField) []store.SortField {
	out := append([]store.SortField{}, first...)
	for _, s := range requested {
		if !slices.ContainsFunc(first, func(f store.SortField) bool { return f.Field == s.Field }) {
			out = append(out, s)
		}
	}
	return out
}

// storedFields maps a projection to stored fields: virtual fields need
// whole records, so they disable the store projection.
func storedFields(r *Resource, fields []string) []string {
	for _, f := range fields {
		if fd := r.Field(f); fd != nil && fd.Virtual {
			return nil
		}
	}
	return fields
}
