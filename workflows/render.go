package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// maxRenders bounds one run's history; a record saved again and again
// continues as new.
const maxRenders = 200

var renderOptions = workflow.ActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute, MaximumAttempts: 10},
}

// RenderRecord renders one record whenever a write signals a change: the
// workflow id is the record's, so renders of it never overlap, and the
// saves that arrive during a render are folded into one more render of
// the record as it then is. A render that fails keeps the record's last
// good output (the record shows why) and becomes a Bug task; the workflow
// goes on with the next save.
func RenderRecord(ctx workflow.Context, in contract.RenderInput) error {
	ctx = workflow.WithActivityOptions(ctx, renderOptions)
	changed := workflow.GetSignalChannel(ctx, contract.SignalRenderChanged)
	for range maxRenders {
		drained(changed)
		err := workflow.ExecuteActivity(ctx, contract.ActivityRender, in).Get(ctx, nil)
		if err != nil && !isRenderFailure(err) {
			return faultReported(ctx, "workflow RenderRecord, render", err)
		}
		if err != nil {
			reportFault(ctx, "workflow RenderRecord, render "+in.Kind, err)
		}
		if !drained(changed) {
			return nil
		}
	}
	return workflow.NewContinueAsNewError(ctx, contract.WorkflowRenderRecord, in)
}

// drained receives every pending signal and reports whether there was one.
func drained(ch workflow.ReceiveChannel) bool {
	got := false
	for ch.ReceiveAsync(nil) {
		got = true
	}
	return got
}

func isRenderFailure(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == contract.ErrTypeRenderFailed
}

// RenderAffected signals the renders of the records a change of shared
// inputs concerns (the pages that use a glossary term or link to a page).
func RenderAffected(ctx workflow.Context, in contract.AffectedInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute, HeartbeatTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute, MaximumAttempts: 10},
	})
	err := workflow.ExecuteActivity(ctx, contract.ActivitySignalAffected, in).Get(ctx, nil)
	if err != nil {
		return faultReported(ctx, "workflow RenderAffected", err)
	}
	return nil
}
