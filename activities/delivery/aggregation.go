package delivery

import (
	"context"

	"platform/kernel/store"
	"platform/modules/aggregation/readmodel"
)

// RecordFeed takes records written without the record service, which
// emit no event, for the read models (readmodel.Feed).
type RecordFeed interface {
	Record(ctx context.Context, name string, rec store.Doc) error
}

var _ RecordFeed = (*readmodel.Feed)(nil)

// aggregateAttempt counts an attempt record in the webhook health read
// model. Like the record itself it is history, not delivery: a failure
// is logged (a rebuild recounts the records).
func (a *Activities) aggregateAttempt(ctx context.Context, doc store.Doc) {
	if a.Aggregation == nil {
		return
	}
	if err := a.Aggregation.Record(ctx, readmodel.EventAttemptRecorded, doc); err != nil {
		a.Log.WarnContext(ctx, "aggregate webhook attempt", "attempt", doc["_id"], "error", err)
	}
}
