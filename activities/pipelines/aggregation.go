package pipelines

import (
	"context"

	"platform/kernel/store"
	"platform/modules/aggregation/readmodel"
)

// RunFeed takes run records, which are written without the record
// service and emit no event, for the read models (readmodel.Feed).
type RunFeed interface {
	Record(ctx context.Context, name string, rec store.Doc) error
}

var _ RunFeed = (*readmodel.Feed)(nil)

// aggregateRun counts an ended run in the pipeline statistics; an error
// fails FinishRun, whose retry writes and feeds the run again (the read
// model counts a run once, by its latest record).
func (a *Activities) aggregateRun(ctx context.Context, rec store.Doc) error {
	if a.Aggregation == nil || rec == nil {
		return nil
	}
	return a.Aggregation.Record(ctx, readmodel.EventRunEnded, rec)
}
