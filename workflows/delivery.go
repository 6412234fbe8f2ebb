package workflows

import (
	"errors"
	"strconv"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/activities"
	"platform/modules/automation/webhook"
)

// DeliveryRetryPolicy is the webhook retry rule of DESIGN §5: at most 5
// attempts in all, waiting 1, 2, 4 and 8 minutes (doubling, capped at 16).
var DeliveryRetryPolicy = &temporal.RetryPolicy{
	InitialInterval:    time.Minute,
	BackoffCoefficient: 2,
	MaximumInterval:    16 * time.Minute,
	MaximumAttempts:    webhook.MaxAttempts,
}

// Attempt time-outs: the HTTP call itself is bounded by
// PLATFORM_WEBHOOK_TIMEOUT (at most config.MaxWebhookTimeout); the
// heartbeat time-out notices a worker that died mid-attempt quickly.
const (
	attemptTimeout   = 5 * time.Minute
	attemptHeartbeat = 20 * time.Second
)

// DeliveryInput names one delivery round of an event to a webhook.
type DeliveryInput struct {
	EventID   string
	Event     string // the event's name
	WebhookID string
	Round     int // 0: the dispatch; n: the n-th manual retry
}

// DeliveryResult says how the round ended (a webhook.Status* value).
type DeliveryResult struct {
	Status string
}

// DeliveryWorkflowID is the deterministic id of a delivery round: starting
// it twice starts it once.
func DeliveryWorkflowID(eventID, webhookID string, round int) string {
	id := "delivery-" + webhook.DeliveryID(eventID, webhookID)
	if round > 0 {
		id += "-retry" + strconv.Itoa(round)
	}
	return id
}

// DeliveryAttributes are the search attributes of a delivery, so the
// Temporal UI finds deliveries by customer, webhook and event id.
func DeliveryAttributes(customer, eventID, webhookID string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		temporal.NewSearchAttributeKeyKeyword(AttrCustomer).ValueSet(customer),
		temporal.NewSearchAttributeKeyKeyword(AttrWebhook).ValueSet(webhookID),
		temporal.NewSearchAttributeKeyKeyword(AttrEvent).ValueSet(eventID),
	)
}

// WebhookDelivery delivers one event to one webhook: one activity whose
// retries are the delivery's attempts. After the last failed attempt the
// delivery is parked in webhookretries; a 410 Gone ends it at once.
func WebhookDelivery(ctx workflow.Context, in DeliveryInput) (DeliveryResult, error) {
	var a *activities.Activities
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: attemptTimeout,
		HeartbeatTimeout:    attemptHeartbeat,
		RetryPolicy:         DeliveryRetryPolicy,
	})
	var out activities.DeliverOutput
	err := workflow.ExecuteActivity(actx, a.DeliverWebhook, activities.DeliverInput{
		EventID: in.EventID, WebhookID: in.WebhookID, Round: in.Round,
	}).Get(ctx, &out)
	if temporal.IsCanceledError(err) {
		return DeliveryResult{}, err
	}
	status := outcome(err, out)
	if status == webhook.StatusParked || in.Round > 0 {
		err := workflow.ExecuteActivity(storeOptions(ctx), a.SettleDelivery, activities.SettleInput{
			EventID: in.EventID, Event: in.Event, WebhookID: in.WebhookID, Round: in.Round, Status: status,
		}).Get(ctx, nil)
		if err != nil {
			return DeliveryResult{}, err
		}
	}
	return DeliveryResult{Status: status}, nil
}

// outcome maps the delivery activity's result to the round's status.
func outcome(err error, out activities.DeliverOutput) string {
	if err == nil {
		return out.Status
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == activities.ErrTypeGone {
		return webhook.StatusDeactivated
	}
	return webhook.StatusParked
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
		WorkflowID:            DeliveryWorkflowID(eventID, webhookID, 0),
		ParentClosePolicy:     enums.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: DeliveryAttributes(customer, eventID, webhookID),
	}
}
