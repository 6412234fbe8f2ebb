package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

const (
	// aggregatorStepsPerRun bounds one run's history (about 10 events a
	// step); the Aggregator goes on as new.
	aggregatorStepsPerRun = 400
	// aggregatorPoll: without a wake-up the inbox is still read this often
	// (a wake-up lost to a crash costs at most this much lag).
	aggregatorPoll = time.Minute
	// aggregatorIdlePolls: after this many polls that found nothing the
	// Aggregator ends; the next event starts it again.
	aggregatorIdlePolls = 10
	// rebuildPollEvery: how often AggregationRebuild looks at the
	// customers it waits for.
	rebuildPollEvery = 2 * time.Second
	// rebuildCustomersPage: customers asked per run of AggregationRebuild.
	rebuildCustomersPage = 100
)

func aggregationActivities(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// A batch is a few hundred row writes: seconds on the slowest store.
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
}

// Aggregator applies the customer's inbox to its read models, one batch
// after another, so batches of one customer never run concurrently (the
// engine's idempotence relies on that). A wake-up signal says events wait;
// a rebuild signal starts a rebuild, which runs page by page between the
// batches and survives continue-as-new in the input.
func Aggregator(ctx workflow.Context, in contract.AggregatorInput) error {
	ctx = aggregationActivities(ctx)
	wake := workflow.GetSignalChannel(ctx, contract.SignalAggregationWake)
	rebuilds := workflow.GetSignalChannel(ctx, contract.SignalAggregationRebuild)
	if err := workflow.SetQueryHandler(ctx, contract.QueryAggregationProgress, func() (*contract.AggregationRebuildCursor, error) {
		return in.Rebuild, nil
	}); err != nil {
		return err
	}
	idle := 0
	for range aggregatorStepsPerRun {
		if err := takeRebuild(ctx, rebuilds, &in); err != nil {
			return err
		}
		var r contract.ApplyAggregationResult
		if err := workflow.ExecuteActivity(ctx, contract.ActivityApplyAggregation, contract.ApplyAggregationInput{Limit: in.Limit}).Get(ctx, &r); err != nil {
			return err
		}
		if in.Rebuild != nil {
			if err := rebuildStep(ctx, &in); err != nil {
				return err
			}
			continue
		}
		if r.More {
			continue
		}
		if r.Events > 0 || waitForWork(ctx, wake, rebuilds) {
			idle = 0
			continue
		}
		if idle++; idle >= aggregatorIdlePolls && nothingWaits(wake, rebuilds) {
			return nil
		}
	}
	// A rebuild request received meanwhile must not be lost with this
	// run's history (a wake-up may: the next run reads the inbox first).
	if err := takeRebuild(ctx, rebuilds, &in); err != nil {
		return err
	}
	return workflow.NewContinueAsNewError(ctx, contract.WorkflowAggregator, in)
}

// takeRebuild starts a requested rebuild. A request with the id of the
// rebuild under way is that one asked again; another request starts over
// (its models emptied again), so the newest request is the one reported.
func takeRebuild(ctx workflow.Context, rebuilds workflow.ReceiveChannel, in *contract.AggregatorInput) error {
	var req contract.AggregationRebuildRequest
	for rebuilds.ReceiveAsync(&req) {
		if in.Rebuild != nil && in.Rebuild.ID == req.ID {
			continue
		}
		cur := contract.AggregationRebuildCursor{ID: req.ID, Models: req.Models}
		if err := workflow.ExecuteActivity(ctx, contract.ActivityStartAggregationRebuild, contract.StartAggregationRebuildInput{Cursor: cur}).Get(ctx, &cur); err != nil {
			return err
		}
		in.Rebuild = &cur
	}
	return nil
}

// rebuildStep counts one page of the rebuild, and records it finished
// after the last.
func rebuildStep(ctx workflow.Context, in *contract.AggregatorInput) error {
	var r contract.RebuildAggregationPageResult
	if err := workflow.ExecuteActivity(ctx, contract.ActivityRebuildAggregationPage, contract.RebuildAggregationPageInput{Cursor: *in.Rebuild, Limit: in.Limit}).Get(ctx, &r); err != nil {
		return err
	}
	in.Rebuild = &r.Cursor
	if !r.Finished {
		return nil
	}
	err := workflow.ExecuteActivity(ctx, contract.ActivityFinishAggregationRebuild, contract.FinishAggregationRebuildInput{ID: r.Cursor.ID}).Get(ctx, nil)
	in.Rebuild = nil
	return err
}

// waitForWork waits for a signal or the poll timer; true when signalled.
func waitForWork(ctx workflow.Context, wake, rebuilds workflow.ReceiveChannel) bool {
	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	signalled := false
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(wake, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		for c.ReceiveAsync(nil) {
		}
		signalled = true
	})
	sel.AddReceive(rebuilds, func(workflow.ReceiveChannel, bool) { signalled = true }) // taken by takeRebuild
	sel.AddFuture(workflow.NewTimer(tctx, aggregatorPoll), func(workflow.Future) {})
	sel.Select(ctx)
	return signalled
}

// nothingWaits says no signal waits, so the run may end without losing
// one.
func nothingWaits(wake, rebuilds workflow.ReceiveChannel) bool {
	return wake.Len() == 0 && rebuilds.Len() == 0
}

// AggregationRebuild asks the Aggregator of one customer, or of every
// customer a page at a time, for a rebuild and waits until they finished.
// Interrupted, it is started again with the same input and asks again:
// a request is taken once per Aggregator (docs/aggregation.md).
func AggregationRebuild(ctx workflow.Context, in contract.AggregationRebuildInput) (contract.AggregationRebuildProgress, error) {
	ctx = aggregationActivities(ctx)
	if err := workflow.SetQueryHandler(ctx, contract.QueryAggregationProgress, func() (contract.AggregationRebuildProgress, error) {
		return rebuildProgress(in, false), nil
	}); err != nil {
		return contract.AggregationRebuildProgress{}, err
	}
	page, err := rebuildCustomers(ctx, &in)
	if err != nil {
		return rebuildProgress(in, false), err
	}
	for _, c := range page {
		req := contract.RequestAggregationRebuildInput{Customer: c, Request: contract.AggregationRebuildRequest{ID: in.ID, Models: in.Models}}
		if err := workflow.ExecuteActivity(ctx, contract.ActivityRequestAggregationRebuild, req).Get(ctx, nil); err != nil {
			return rebuildProgress(in, false), err
		}
		in.Requested++
	}
	in.Waiting = append(in.Waiting, page...)
	for len(in.Waiting) > 0 {
		var r contract.AggregationRebuildsDoneResult
		if err := workflow.ExecuteActivity(ctx, contract.ActivityAggregationRebuildsDone, contract.AggregationRebuildsDoneInput{ID: in.ID, Customers: in.Waiting}).Get(ctx, &r); err != nil {
			return rebuildProgress(in, false), err
		}
		in.Finished += len(in.Waiting) - len(r.Waiting)
		in.Waiting = r.Waiting
		if len(in.Waiting) > 0 {
			if err := workflow.Sleep(ctx, rebuildPollEvery); err != nil {
				return rebuildProgress(in, false), err
			}
		}
	}
	if in.Customer == "" && len(page) == rebuildCustomersPage {
		return rebuildProgress(in, false), workflow.NewContinueAsNewError(ctx, contract.WorkflowAggregationRebuild, in)
	}
	return rebuildProgress(in, true), nil
}

// rebuildCustomers is the next page of customers to ask (just the one
// customer, once, when the input names it).
func rebuildCustomers(ctx workflow.Context, in *contract.AggregationRebuildInput) ([]string, error) {
	if in.Customer != "" {
		if in.Requested > 0 {
			return nil, nil
		}
		return []string{in.Customer}, nil
	}
	var r contract.AggregationCustomersResult
	if err := workflow.ExecuteActivity(ctx, contract.ActivityAggregationCustomers, contract.AggregationCustomersInput{After: in.After, Limit: rebuildCustomersPage}).Get(ctx, &r); err != nil {
		return nil, err
	}
	if n := len(r.Customers); n > 0 {
		in.After = r.Customers[n-1]
	}
	return r.Customers, nil
}

func rebuildProgress(in contract.AggregationRebuildInput, done bool) contract.AggregationRebuildProgress {
	return contract.AggregationRebuildProgress{ID: in.ID, Requested: in.Requested, Finished: in.Finished, Done: done}
}
