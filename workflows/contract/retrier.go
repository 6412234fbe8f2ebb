package contract

import (
	"time"

	"go.temporal.io/sdk/temporal"
)

// The webhook retrier: one workflow per webhook that retries the
// webhook's failed deliveries, queued as webhookretries records, instead
// of one workflow per failed delivery (a dead receiver with 40,000 events
// would otherwise mean 40,000 workflows).
const (
	WorkflowWebhookRetrier = "WebhookRetrier"
	// ActivityRetryDueDeliveries makes the due attempts of one webhook's
	// queued deliveries, at most RetryDueInput.Limit of them.
	ActivityRetryDueDeliveries = "RetryDueDeliveries"
	// SignalRetrierQueued tells a running retrier that deliveries were
	// queued: it owes a check at RetrierCheckAfter from then.
	SignalRetrierQueued = "queued"
)

// RetrierSignalFresh is how long a process that signalled (or started) a
// webhook's retrier trusts it to see what it queues next without
// signalling again; RetrierCheckAfter is when the retrier, after a
// signal, looks for queued deliveries once more before it may end. The
// check comes after every delivery queued in the trusted window, so
// nothing queued then is left behind; the margin absorbs clock skew
// between processes.
const (
	RetrierSignalFresh = 30 * time.Second
	RetrierCheckAfter  = RetrierSignalFresh + 15*time.Second
)

// RetrierMinPause is the shortest pause between two calls of a retrier
// that has no backlog: deliveries that fall due within it are attempted
// together, so a steady stream of failures costs one call per pause, not
// one per delivery.
const RetrierMinPause = 10 * time.Second

// RetryBatch is the most queued deliveries one retrier call attempts.
const RetryBatch = 200

// RetrierInput names the webhook (of the customer in the context) whose
// queued deliveries the retrier retries. CheckAt carries a check owed to
// signals over continue-as-new; zero for none.
type RetrierInput struct {
	WebhookID string
	CheckAt   time.Time
}

// RetryDueInput asks for one round of a webhook's retries: the queued
// deliveries due at Now (the workflow's time, so that due times and the
// next attempts' times follow the workflow clock), at most Limit.
type RetryDueInput struct {
	WebhookID string
	Now       time.Time
	Limit     int
}

// RetryDueOutput is how a round went. Next is when the earliest delivery
// still queued falls due (at or before Now: more are due at once); zero
// when none is left.
type RetryDueOutput struct {
	Next      time.Time
	Attempted int // attempts recorded, sent or not
	Sent      int // attempts that reached the network
	Delivered int
	Parked    int
	Ended     int  // ended without an attempt: the webhook was gone, inactive or disabled
	Disabled  bool // the round disabled the webhook (circuit breaker)
}

// RetrierWorkflowID is the id of a webhook's retrier: one at a time per
// webhook, started again when it has ended.
func RetrierWorkflowID(webhookID string) string { return "webhook-retrier-" + webhookID }

// RetrierAttributes are the search attributes of a webhook's retrier.
func RetrierAttributes(customer, webhookID string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		temporal.NewSearchAttributeKeyKeyword(AttrCustomer).ValueSet(customer),
		temporal.NewSearchAttributeKeyKeyword(AttrWebhook).ValueSet(webhookID),
	)
}
