package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// maxRetentionRounds bounds one retention run's history per kind; what is
// left waits for the next scheduled run.
const maxRetentionRounds = 200

// subscriptionsKey is the RetentionResult.Removed key of pruned patterns.
const subscriptionsKey = "subscriptions"

// Retention removes the records past their retention, kind after kind
// (contract.RetainKinds), each activity call one bounded batch, then the
// event-subscription patterns nothing uses. A Temporal schedule starts it
// (app.PutRetentionSchedule).
func Retention(ctx workflow.Context) (contract.RetentionResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 10 * time.Second, MaximumAttempts: 3},
	})
	res := contract.RetentionResult{Removed: map[string]int64{}}
	for _, kind := range contract.RetainKinds {
		if err := pruneAll(ctx, contract.ActivityPruneRecords, kind, kind, &res); err != nil {
			return res, err
		}
	}
	return res, pruneAll(ctx, contract.ActivityPruneSubscriptions, "", subscriptionsKey, &res)
}

// pruneAll calls the activity round after round, each from where the
// last stopped, until every customer was seen (or maxRetentionRounds).
func pruneAll(ctx workflow.Context, activity, kind, key string, res *contract.RetentionResult) error {
	in := contract.PruneInput{Kind: kind}
	for range maxRetentionRounds {
		var round contract.PruneRound
		if err := workflow.ExecuteActivity(ctx, activity, in).Get(ctx, &round); err != nil {
			return err
		}
		res.Rounds++
		res.Removed[key] += round.Removed
		if round.Done {
			return nil
		}
		in.Offset = round.Next
	}
	return nil
}
