package contract

import (
	"strconv"

	"go.temporal.io/sdk/temporal"
)

// DispatchInput names a stored event: the input of DispatchEvent.
type DispatchInput struct {
	EventID string
	Event   string // the event's name
}

// DispatchResult lists the webhooks the event went to and the pipeline
// runs it started.
type DispatchResult struct {
	Webhooks []string
	Runs     []string
}

// DispatchWorkflowID is the deterministic id of an event's dispatch: the
// notifier and the sweeper may both start it; it runs once (a failed run
// may be started again).
func DispatchWorkflowID(eventID string) string { return "event-" + eventID }

// EventAttributes are the search attributes of an event's dispatch.
func EventAttributes(customer, eventID string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		temporal.NewSearchAttributeKeyKeyword(AttrCustomer).ValueSet(customer),
		temporal.NewSearchAttributeKeyKeyword(AttrEvent).ValueSet(eventID),
	)
}

// EventTargetsInput names a stored event of the customer in the context.
type EventTargetsInput struct {
	EventID string
	Event   string // the event's name
}

// EventTargetsOutput lists the webhooks the event goes to.
type EventTargetsOutput struct {
	Webhooks []string // ids, sorted
}

// LaunchEventRunsInput names a stored event of the customer in the context.
type LaunchEventRunsInput struct {
	EventID string
	Event   string
}

// LaunchedRuns lists the runs an event or a trigger firing started (or had
// started): the output of LaunchEventRuns, LaunchTriggerRuns and FireTrigger.
type LaunchedRuns struct {
	Runs []string
}

// MarkDispatchedInput names the event whose deliveries have all started.
type MarkDispatchedInput struct{ EventID string }

// DeliveryInput names one delivery round of an event to a webhook: the
// input of WebhookDelivery.
type DeliveryInput struct {
	EventID   string
	Event     string // the event's name
	WebhookID string
	Round     int // 0: the dispatch; n: the n-th manual retry
}

// DeliveryResult says how the round ended (a Status* of deliveries).
type DeliveryResult struct {
	Status string
}

// How a delivery round ends: the Status of DeliveryResult, DeliverOutput
// and SettleInput (the webhook records store the same words).
const (
	StatusDelivered   = "delivered"   // a 2xx answer
	StatusParked      = "parked"      // every attempt failed; waits for a manual retry
	StatusDeactivated = "deactivated" // the receiver answered 410 Gone
	StatusSkipped     = "skipped"     // the webhook was inactive or deleted when its turn came
)

// MaxDeliveryAttempts is the number of attempts of one delivery round
// (DESIGN §5): the delivery workflow's retry policy, and the attempt
// records SettleDelivery reads.
const MaxDeliveryAttempts = 5

// DeliveryWorkflowID is the deterministic id of a delivery round: starting
// it twice starts it once. Its middle is the delivery id the receiver sees
// (event id, dash, webhook id); it is spelled out here because the ids of
// running workflows must not change with that header.
func DeliveryWorkflowID(eventID, webhookID string, round int) string {
	id := "delivery-" + eventID + "-" + webhookID
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

// DeliverInput names one delivery attempt: the event to the webhook, in a
// round (0: the dispatch; n: the n-th manual retry).
type DeliverInput struct {
	EventID   string
	WebhookID string
	Round     int
}

// DeliverOutput is a successful or skipped attempt.
type DeliverOutput struct {
	Status     string // StatusDelivered or StatusSkipped
	StatusCode int
}

// Error types of DeliverWebhook, matched by the delivery workflow.
const (
	ErrTypeAttemptFailed = "WebhookAttemptFailed" // retried by the policy
	ErrTypeGone          = "WebhookGone"          // 410: not retried, webhook deactivated
)

// SettleInput reports how a delivery round ended.
type SettleInput struct {
	EventID   string
	Event     string // the event's name
	WebhookID string
	Round     int
	Status    string // StatusParked, StatusDelivered, StatusDeactivated or StatusSkipped
}
