package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// maxComputingPolls bounds one run's history; a slow move continues as new.
const maxComputingPolls = 500

// computingOptions: a provider that stays down for minutes fails the
// action (the entity shows why) rather than leaving it pending for ever.
var computingOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 30 * time.Second, MaximumAttempts: 8,
		NonRetryableErrorTypes: []string{contract.ErrTypeComputingFailed}},
}

// ComputingAction moves one computing entity: it asks the provider for
// the move, reads the machine every Poll until the move has landed or the
// deadline passed, and settles the entity with the outcome. A failure at
// the provider is an outcome (the entity records it), not a failed
// workflow; only a settle the store refuses for good fails the run.
func ComputingAction(ctx workflow.Context, in contract.ComputingActionInput) error {
	ctx = workflow.WithActivityOptions(ctx, computingOptions)
	var m contract.ComputingMachine
	var err error
	if !in.Requested {
		err = workflow.ExecuteActivity(ctx, contract.ActivityComputingRequest, in).Get(ctx, &m)
		in.Requested = true
	} else {
		m.Moving = true
	}
	for polls := 0; err == nil && m.Moving; polls++ {
		if polls == maxComputingPolls {
			return workflow.NewContinueAsNewError(ctx, contract.WorkflowComputingAction, in)
		}
		err = awaitMachine(ctx, in, &m)
	}
	return settleComputing(ctx, in, m, err)
}

// awaitMachine waits one poll and reads the machine again; past the
// deadline it gives up.
func awaitMachine(ctx workflow.Context, in contract.ComputingActionInput, m *contract.ComputingMachine) error {
	if !workflow.Now(ctx).Before(in.Deadline) {
		return fmt.Errorf("the provider did not finish the %s by the deadline; the machine was %s", in.Action, m.State)
	}
	if err := workflow.Sleep(ctx, in.Poll); err != nil {
		return err
	}
	return workflow.ExecuteActivity(ctx, contract.ActivityComputingRead, in).Get(ctx, m)
}

func settleComputing(ctx workflow.Context, in contract.ComputingActionInput, m contract.ComputingMachine, err error) error {
	out := contract.ComputingSettleInput{EntityID: in.EntityID, Action: in.Action,
		WorkflowID: workflow.GetInfo(ctx).WorkflowExecution.ID, State: m.State}
	switch {
	case err != nil:
		out.Failure = computingFailure(err)
	case !m.Landed:
		out.Failure = fmt.Sprintf("the machine ended %s: the %s did not land", m.State, in.Action)
	}
	// The settle is a store write: retried until the store answers.
	sctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	if err := workflow.ExecuteActivity(sctx, contract.ActivityComputingSettle, out).Get(sctx, nil); err != nil {
		return faultReported(ctx, "workflow ComputingAction, settle", err)
	}
	return nil
}

// computingFailure is the tenant-readable reason of a failed move.
func computingFailure(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return "the provider did not answer in time"
	}
	return err.Error()
}
