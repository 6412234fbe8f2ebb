package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// FireTrigger starts a run of every active pipeline using the trigger. A
// cron trigger's Temporal schedule starts it at each tick (its workflow id
// is unique per tick, so the runs of one tick start once across replicas).
func FireTrigger(ctx workflow.Context, in contract.FireInput) (contract.LaunchedRuns, error) {
	if _, err := tenant.WorkflowCustomer(ctx); err != nil {
		return contract.LaunchedRuns{}, temporal.NewNonRetryableApplicationError("the trigger has no customer", "NoCustomer", err)
	}
	if in.Event.Timestamp.IsZero() {
		in.Event.Timestamp = workflow.Now(ctx).UTC()
	}
	if in.Event.Data == nil {
		in.Event.Data = map[string]any{}
	}
	var out contract.LaunchedRuns
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	err := workflow.ExecuteLocalActivity(lctx, contract.ActivityLaunchTriggerRuns, contract.LaunchTriggerRunsInput{
		Trigger: in.Trigger, Pipeline: in.Pipeline, TriggeredBy: in.TriggeredBy, FiringID: workflow.GetInfo(ctx).WorkflowExecution.ID, Event: in.Event,
	}).Get(ctx, &out)
	return out, err
}
