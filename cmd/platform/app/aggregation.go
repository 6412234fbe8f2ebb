package app

import (
	"context"

	aggacts "platform/activities/aggregation"
	"platform/modules/aggregation"
	"platform/modules/aggregation/readmodel"
	"platform/worker"
	"platform/worker/dispatch"
)

// aggregationEngine applies events to the read models (docs/aggregation.md).
func (a *App) aggregationEngine() *readmodel.Engine {
	return &readmodel.Engine{Store: a.Store}
}

// aggregationDeps are the aggregation module's dependencies.
func (a *App) aggregationDeps() aggregation.Deps {
	if a.Store == nil {
		return aggregation.Deps{} // the declarations only (Modules)
	}
	return aggregation.Deps{Status: a.aggregationEngine()}
}

// aggregationFeed puts events and records into the customers' inboxes and
// wakes their Aggregators.
func (a *App) aggregationFeed() *readmodel.Feed {
	f := &readmodel.Feed{Store: a.Store}
	if a.Temporal != nil {
		f.Waker = &aggacts.Waker{Starter: a.starter(a.Config.TaskQueue)}
	}
	return f
}

// aggregationActivities are the Aggregator's activities.
func (a *App) aggregationActivities() *aggacts.Activities {
	return &aggacts.Activities{Engine: a.aggregationEngine(), Temporal: a.Temporal, TaskQueue: a.Config.TaskQueue}
}

// wireAggregation lets the worker's event dispatcher, webhook attempts and
// pipeline run ends feed the read models.
func (a *App) wireAggregation(acts worker.Activities, d *dispatch.Dispatcher) {
	feed := a.aggregationFeed()
	d.Aggregation = feed
	acts.Delivery.Aggregation = feed
	acts.Pipelines.Aggregation = feed
	if a.pipes.launcher != nil {
		a.pipes.launcher.Aggregation = feed
	}
}

// aggregationIndexes declares the engine's indexes (the rows' come with
// the module's resources).
func (a *App) aggregationIndexes(ctx context.Context) error {
	for coll, idx := range readmodel.Indexes {
		if err := a.Store.EnsureIndexes(ctx, coll, true, idx); err != nil {
			return err
		}
	}
	return nil
}
