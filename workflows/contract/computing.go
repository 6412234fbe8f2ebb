package contract

import "time"

// Computing entities: each start, stop or terminate of an entity is one
// ComputingAction workflow (activities/computing). It asks the provider
// for the move, reads the machine until the move has landed (or the
// deadline passed), and settles the entity: its state field, the pending
// action cleared, the event of the outcome.
const (
	WorkflowComputingAction = "ComputingAction"
	// ActivityComputingRequest asks the provider for the move.
	ActivityComputingRequest = "ComputingRequest"
	// ActivityComputingRead reads the machine at the provider.
	ActivityComputingRead = "ComputingRead"
	// ActivityComputingSettle writes the outcome into the entity.
	ActivityComputingSettle = "ComputingSettle"
	// ErrTypeComputingFailed is a move the provider refused or cannot
	// make (an unknown machine, a rejected request): asking again fails
	// the same way.
	ErrTypeComputingFailed = "ComputingFailed"
)

// ComputingWorkflowID is the workflow of one action on a customer's
// entity; nonce tells apart the actions of one entity over its life.
func ComputingWorkflowID(customer, entity, action, nonce string) string {
	return "computing-" + customer + "-" + entity + "-" + action + "-" + nonce
}

// ComputingActionInput names an action on an entity of the customer in
// the context. Poll is the wait between two reads of the machine, and
// Deadline when the move counts as failed; Requested is set when a run
// continued as new after asking for the move.
type ComputingActionInput struct {
	EntityID  string
	Action    string
	Poll      time.Duration
	Deadline  time.Time
	Requested bool
}

// ComputingMachine is the machine as the provider has it: Moving while
// the move is under way; Landed once it reached the action's target.
type ComputingMachine struct {
	State  string
	Moving bool
	Landed bool
}

// ComputingSettleInput is the outcome of an action: State is the
// machine's last known provider state ("" when none was read), Failure
// why the action failed ("" when it landed).
type ComputingSettleInput struct {
	EntityID   string
	Action     string
	WorkflowID string
	State      string
	Failure    string
}
