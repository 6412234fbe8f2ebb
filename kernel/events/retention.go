package events

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// PruneDispatched removes at most limit events of the customer in ctx
// that were dispatched and recorded before before, except those whose ids
// are in keep (events a parked delivery still needs for its retry). An
// event not dispatched yet is never removed, however old: the sweeper
// still has to start its dispatch.
func PruneDispatched(ctx context.Context, st store.Store, before time.Time, limit int, keep []string) (int64, error) {
	filter := query.AllOf(
		query.Eq("dispatched", true),
		query.Field{Path: "timestamp", Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: before.UTC()}}},
	)
	if len(keep) > 0 {
		ids := make([]any, len(keep))
		for i, id := range keep {
			ids[i] = id
		}
		filter = query.AllOf(filter, query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids, Not: true}}})
	}
	return store.DeleteBatch(ctx, st.Collection(Collection), filter, limit)
}
