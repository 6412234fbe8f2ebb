package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// SelfCheck proves the whole worker path end to end: the customer travels
// through the context propagator, and an activity writes and reads a record
// of that customer in the store. `platform check` and the tests run it.
func SelfCheck(ctx workflow.Context, in contract.SelfCheckInput) (contract.SelfCheckResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var out contract.SelfCheckResult
	err := workflow.ExecuteActivity(ctx, contract.ActivitySelfCheck, in).Get(ctx, &out)
	return out, err
}
