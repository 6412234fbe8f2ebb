package store

import (
	"context"

	"platform/kernel/query"
)

// DeleteBatch removes at most limit documents of c matching filter and
// answers how many went. It finds their ids first and deletes by id with
// the filter repeated, so one call never holds the store for long (a
// housekeeping delete must not block writes) and a document that changed
// since it was found no longer matching stays.
func DeleteBatch(ctx context.Context, c Collection, filter query.Expr, limit int) (int64, error) {
	if limit <= 0 {
		return 0, nil
	}
	docs, err := c.Find(ctx, FindOptions{Filter: filter, Fields: []string{"_id"}, Limit: int64(limit)})
	if err != nil || len(docs) == 0 {
		return 0, err
	}
	ids := make([]any, len(docs))
	for i, d := range docs {
		ids[i] = d["_id"]
	}
	return c.Delete(ctx, query.AllOf(query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids}}}, filter))
}
