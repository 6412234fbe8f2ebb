package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// DispatchEvent starts one delivery workflow per matching active webhook of
// the event's customer and one run per pipeline whose trigger selects the
// event, then marks the event dispatched. Delivery ids are
// deterministic, so running it again after a crash starts nothing twice.
func DispatchEvent(ctx workflow.Context, in contract.DispatchInput) (contract.DispatchResult, error) {
	customer, err := tenant.WorkflowCustomer(ctx)
	if err != nil {
		return contract.DispatchResult{}, temporal.NewNonRetryableApplicationError("the event has no customer", "NoCustomer", err)
	}
	// Every failure below is the platform's (the steps read and write the
	// store, and retry until it answers): each files a Bug task.
	lctx := localStoreOptions(ctx)
	var targets contract.EventTargetsOutput
	if err := workflow.ExecuteLocalActivity(lctx, contract.ActivityEventTargets, contract.EventTargetsInput(in)).Get(ctx, &targets); err != nil {
		return contract.DispatchResult{}, faultReported(ctx, "workflow DispatchEvent, event targets", err)
	}
	if err := startDeliveries(ctx, customer, in, targets.Webhooks); err != nil {
		return contract.DispatchResult{}, faultReported(ctx, "workflow DispatchEvent, start deliveries", err)
	}
	var started contract.LaunchedRuns
	// Dispatches recorded before pipeline triggers existed replay without them.
	if workflow.GetVersion(ctx, "pipeline-triggers", workflow.DefaultVersion, 1) == 1 {
		if err := workflow.ExecuteLocalActivity(lctx, contract.ActivityLaunchEventRuns, contract.LaunchEventRunsInput(in)).Get(ctx, &started); err != nil {
			return contract.DispatchResult{}, faultReported(ctx, "workflow DispatchEvent, launch runs", err)
		}
	}
	if err := workflow.ExecuteLocalActivity(lctx, contract.ActivityMarkDispatched, contract.MarkDispatchedInput{EventID: in.EventID}).Get(ctx, nil); err != nil {
		return contract.DispatchResult{}, faultReported(ctx, "workflow DispatchEvent, mark dispatched", err)
	}
	return contract.DispatchResult{Webhooks: targets.Webhooks, Runs: started.Runs}, nil
}

// localStoreOptions run the dispatcher's short store calls as local
// activities: in the worker that runs the workflow, recorded as markers,
// with no activity tasks through the server. Every event has a dispatch, so
// this halves the server's work per event. They are idempotent, so a
// repeated run after a worker crash is harmless.
func localStoreOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
}

// startDeliveries starts the delivery children and waits until each has
// started (or had started before: a redelivery is a no-op).
func startDeliveries(ctx workflow.Context, customer string, in contract.DispatchInput, hooks []string) error {
	started := make([]workflow.ChildWorkflowFuture, len(hooks))
	for i, h := range hooks {
		cctx := workflow.WithChildOptions(ctx, deliveryChildOptions(customer, in.EventID, h))
		started[i] = workflow.ExecuteChildWorkflow(cctx, contract.WorkflowWebhookDelivery, contract.DeliveryInput{EventID: in.EventID, Event: in.Event, WebhookID: h})
	}
	for _, f := range started {
		if err := f.GetChildWorkflowExecution().Get(ctx, nil); err != nil && !temporal.IsWorkflowExecutionAlreadyStartedError(err) {
			return err
		}
	}
	return nil
}
