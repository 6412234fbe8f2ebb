package dispatch

import (
	"context"

	"platform/kernel/store"
)

// AggregationFeed takes the events of a batch the read models count
// (readmodel.Feed): it stores them in the customer's aggregation inbox
// and wakes its Aggregator workflow.
type AggregationFeed interface {
	Events(ctx context.Context, events []store.Doc) error
}

// feedAggregation hands the batch to the aggregation service before any
// of its events can be marked dispatched: a failure releases the batch,
// which is dispatched again (at least once; the inbox drops repeats).
func (d *Dispatcher) feedAggregation(ctx context.Context, docs []store.Doc) error {
	if d.Aggregation == nil {
		return nil
	}
	return d.Aggregation.Events(ctx, docs)
}
