package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// SweepOAuthActivity is the registered name of the activity OAuthSweep
// calls: maintenance.Activities.SweepOAuth, registered by its method name.
// The workflow names it instead of importing package activities, so it sees
// only what the import rules allow (this belongs in workflows/contract).
const SweepOAuthActivity = "SweepOAuth"

// OAuthSweepRound is what one call of the activity answers (the JSON form
// of maintenance.SweepRound): documents removed per collection, and
// whether expired ones are left for another call.
type OAuthSweepRound struct {
	Removed map[string]int64
	More    bool
}

// OAuthSweepResult sums the rounds of one sweep.
type OAuthSweepResult struct {
	Removed map[string]int64
	Rounds  int
}

// maxSweepRounds bounds one sweep's history; what is left waits for the
// next scheduled run.
const maxSweepRounds = 50

// OAuthSweep removes what expired from the OAuth service's collections, a
// bounded round at a time, until nothing expired is left (or
// maxSweepRounds). A Temporal schedule starts it (app.PutOAuthSweepSchedule).
func OAuthSweep(ctx workflow.Context) (OAuthSweepResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 10 * time.Second, MaximumAttempts: 3},
	})
	res := OAuthSweepResult{Removed: map[string]int64{}}
	for res.Rounds < maxSweepRounds {
		var round OAuthSweepRound
		if err := workflow.ExecuteActivity(ctx, SweepOAuthActivity).Get(ctx, &round); err != nil {
			return res, err
		}
		res.Rounds++
		for coll, n := range round.Removed {
			res.Removed[coll] += n
		}
		if !round.More {
			break
		}
	}
	return res, nil
}
