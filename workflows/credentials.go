package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// credentialCommandOptions: one attempt. A provider call is not
// idempotent (a refresh uses up its refresh token: a second attempt would
// be refused and mark the credential expired), and the caller waits for
// the answer: a failure is reported and the caller repeats the command.
var credentialCommandOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
}

// CredentialCommand runs one command (test, refresh, revoke) on one
// credential in its activity, which holds the clear values; the workflow
// sees only the outcome.
func CredentialCommand(ctx workflow.Context, in contract.CredentialCommandInput) (contract.CredentialCommandResult, error) {
	ctx = workflow.WithActivityOptions(ctx, credentialCommandOptions)
	var out contract.CredentialCommandResult
	err := workflow.ExecuteActivity(ctx, contract.ActivityRunCredentialCommand, in).Get(ctx, &out)
	return out, err
}
