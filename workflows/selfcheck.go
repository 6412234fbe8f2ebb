package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/activities"
)

// SelfCheckInput names the marker the check writes.
type SelfCheckInput struct {
	Marker string
}

// SelfCheckResult reports what the worker saw.
type SelfCheckResult struct {
	Customer string
	Found    bool
}

// SelfCheck proves the whole worker path end to end: the customer travels
// through the context propagator, and an activity writes and reads a record
// of that customer in the store. `platform check` and the tests run it.
func SelfCheck(ctx workflow.Context, in SelfCheckInput) (SelfCheckResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var a *activities.Activities
	var out activities.SelfCheckOutput
	err := workflow.ExecuteActivity(ctx, a.SelfCheck, activities.SelfCheckInput{Marker: in.Marker}).Get(ctx, &out)
	if err != nil {
		return SelfCheckResult{}, err
	}
	return SelfCheckResult{Customer: out.Customer, Found: out.Found}, nil
}
