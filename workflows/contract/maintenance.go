package contract

// The platform's housekeeping workflows, started by Temporal schedules.
const (
	WorkflowOAuthSweep = "OAuthSweep"
	// ActivitySweepOAuth runs one bounded round of the OAuth sweep.
	ActivitySweepOAuth = "SweepOAuth"
)

// OAuthSweepRound is what one round of the OAuth sweep answers: documents
// removed per collection, and whether expired ones are left for another.
type OAuthSweepRound struct {
	Removed map[string]int64
	More    bool
}

// OAuthSweepResult sums the rounds of one sweep.
type OAuthSweepResult struct {
	Removed map[string]int64
	Rounds  int
}

// The retention workflow: it removes records past their retention and
// event-subscription patterns nothing uses, a customer page at a time.
const (
	WorkflowRetention = "Retention"
	// ActivityPruneRecords removes at most one batch of one kind of
	// record, over a page of customers.
	ActivityPruneRecords = "PruneRecords"
	// ActivityPruneSubscriptions prunes the subscription sets of a page of
	// customers.
	ActivityPruneSubscriptions = "PruneSubscriptions"
)

// Kinds of record the retention removes (PruneInput.Kind).
const (
	RetainEvents     = "events"     // dispatched events
	RetainDeliveries = "deliveries" // webhook delivery attempt records
	RetainRuns       = "runs"       // finished pipeline run records
)

// RetainKinds is the order the retention workflow prunes in.
var RetainKinds = []string{RetainEvents, RetainDeliveries, RetainRuns}

// PruneInput asks for one round: Kind (empty for subscriptions), starting
// at the customer at Offset in the customer list.
type PruneInput struct {
	Kind   string
	Offset int64
}

// PruneRound is what one round answers: how many went, where the next
// round starts, and Done when every customer was seen.
type PruneRound struct {
	Removed int64
	Next    int64
	Done    bool
}

// RetentionResult sums the rounds of one retention run: removed per kind
// ("subscriptions" for patterns), and the number of activity calls.
type RetentionResult struct {
	Removed map[string]int64
	Rounds  int
}
