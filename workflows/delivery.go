package workflows

import (
	"errors"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// DeliveryRetryPolicy is the webhook retry rule of DESIGN §5: at most 5
// attempts in all, waiting 1, 2, 4 and 8 minutes (doubling, capped at 16).
var DeliveryRetryPolicy = &temporal.RetryPolicy{
	InitialInterval:    time.Minute,
	BackoffCoefficient: 2,
	MaximumInterval:    16 * time.Minute,
	MaximumAttempts:    contract.MaxDeliveryAttempts,
}

// Attempt time-outs: the HTTP call itself is bounded by
// PLATFORM_WEBHOOK_TIMEOUT (at most config.MaxWebhookTimeout); the
// heartbeat time-out notices a worker that died mid-attempt quickly.
const (
	attemptTimeout   = 5 * time.Minute
	attemptHeartbeat = 20 * time.Second
)

// WebhookDelivery delivers one event to one webhook: one activity whose
// retries are the delivery's attempts. After the last failed attempt the
// delivery is parked in webhookretries; a 410 Gone ends it at once.
func WebhookDelivery(ctx workflow.Context, in contract.DeliveryInput) (contract.DeliveryResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: attemptTimeout,
		HeartbeatTimeout:    attemptHeartbeat,
		RetryPolicy:         DeliveryRetryPolicy,
	})
	var out contract.DeliverOutput
	err := workflow.ExecuteActivity(actx, contract.ActivityDeliverWebhook, contract.DeliverInput{
		EventID: in.EventID, WebhookID: in.WebhookID, Round: in.Round,
	}).Get(ctx, &out)
	if temporal.IsCanceledError(err) {
		return contract.DeliveryResult{}, err
	}
	if platformFault(err) {
		// The delivery is parked like any failed one (a manual retry can
		// still deliver it), and the customer learns of the fault.
		reportFault(ctx, "workflow WebhookDelivery, attempt", err)
	}
	status := outcome(err, out)
	if status == contract.StatusParked || in.Round > 0 {
		err := workflow.ExecuteActivity(storeOptions(ctx), contract.ActivitySettleDelivery, contract.SettleInput{
			EventID: in.EventID, Event: in.Event, WebhookID: in.WebhookID, Round: in.Round, Status: status,
		}).Get(ctx, nil)
		if err != nil {
			return contract.DeliveryResult{}, faultReported(ctx, "workflow WebhookDelivery, settle", err)
		}
	}
	return contract.DeliveryResult{Status: status}, nil
}

// platformFault reports whether a delivery attempt failed on the
// platform's side. The receiver's failures (an error answer, no answer, a
// 410) are outcomes of the delivery, recorded on it; a cancellation or a
// time-out (a worker that stopped mid-attempt) is no defect of the code.
// What is left is an error the activity returned as is: a store or
// wiring fault.
func platformFault(err error) bool {
	var (
		app     *temporal.ApplicationError
		timeout *temporal.TimeoutError
	)
	switch {
	case err == nil, temporal.IsCanceledError(err), errors.As(err, &timeout):
		return false
	case errors.As(err, &app):
		return app.Type() != contract.ErrTypeAttemptFailed && app.Type() != contract.ErrTypeGone
	}
	return true
}

// faultReported files err, which ends the workflow, as a Bug task unless
// it is a cancellation, and returns it.
func faultReported(ctx workflow.Context, where string, err error) error {
	if !temporal.IsCanceledError(err) {
		reportFault(ctx, where, err)
	}
	return err
}

// outcome maps the delivery activity's result to the round's status.
func outcome(err error, out contract.DeliverOutput) string {
	if err == nil {
		return out.Status
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == contract.ErrTypeGone {
		return contract.StatusDeactivated
	}
	return contract.StatusParked
}

// storeOptions run store-only activities: retried until the store answers.
func storeOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
}

// deliveryChildOptions start a delivery from the dispatcher: abandoned when
// the dispatcher ends (it only starts them), and never started twice.
func deliveryChildOptions(customer, eventID, webhookID string) workflow.ChildWorkflowOptions {
	return workflow.ChildWorkflowOptions{
		WorkflowID:            contract.DeliveryWorkflowID(eventID, webhookID, 0),
		ParentClosePolicy:     enums.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: contract.DeliveryAttributes(customer, eventID, webhookID),
	}
}
