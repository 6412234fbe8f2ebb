package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// maxSweepRounds bounds one sweep's history; what is left waits for the
// next scheduled run.
const maxSweepRounds = 50

// OAuthSweep removes what expired from the OAuth service's collections, a
// bounded round at a time, until nothing expired is left (or
// maxSweepRounds). A Temporal schedule starts it (app.PutOAuthSweepSchedule).
func OAuthSweep(ctx workflow.Context) (contract.OAuthSweepResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 10 * time.Second, MaximumAttempts: 3},
	})
	res := contract.OAuthSweepResult{Removed: map[string]int64{}}
	for res.Rounds < maxSweepRounds {
		var round contract.OAuthSweepRound
		if err := workflow.ExecuteActivity(ctx, contract.ActivitySweepOAuth).Get(ctx, &round); err != nil {
			return res, err
		}
		res.Rounds++
		// Summing counts by key: the order cannot show.
		//workflowcheck:ignore
		for coll, n := range round.Removed {
			res.Removed[coll] += n
		}
		if !round.More {
			break
		}
	}
	return res, nil
}
