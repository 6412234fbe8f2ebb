package temporalx

import (
	"context"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Starter starts workflows under deterministic ids, so that a start
// repeated after a crash, by a second replica or by a retried request
// starts the work once. Each workflow starts on its kind's task queue
// (contract.QueueOf), with the customer of the context as its fairness
// key: the server shares a queue's worker slots between customers, so one
// customer's burst cannot hold up another's work (docs/queues.md).
type Starter struct {
	Client client.Client
	// TaskQueue is the base task queue (PLATFORM_TASK_QUEUE), which the
	// queue of each kind of work is named after.
	TaskQueue string
}

// Start describes one workflow start.
type Start struct {
	ID       string
	Workflow string // the registered name (package workflows/contract)
	Input    any
	Attrs    temporal.SearchAttributes
	// RerunFailed lets a run with the id that failed, timed out or was
	// terminated be started again; otherwise any earlier run blocks it.
	RerunFailed bool
}

// Once starts st unless a workflow with its id runs or ran: then started
// is false and err nil.
func (s *Starter) Once(ctx context.Context, st Start) (started bool, err error) {
	policy := enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
	if st.RerunFailed {
		policy = enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY
	}
	_, err = s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    st.ID,
		TaskQueue:             contract.QueueOf(s.TaskQueue, st.Workflow),
		Priority:              Fairness(ctx),
		WorkflowIDReusePolicy: policy,
		// Report a running duplicate instead of silently attaching to it.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes:                    st.Attrs,
	}, st.Workflow, st.Input)
	if temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		return false, nil
	}
	return err == nil, err
}

// StartOnce implements resource.WorkflowStarter: keyword search attributes by name.
func (s *Starter) StartOnce(ctx context.Context, id string, attrs map[string]string, workflow string, input any) (bool, error) {
	var updates []temporal.SearchAttributeUpdate
	for k, v := range attrs {
		updates = append(updates, temporal.NewSearchAttributeKeyKeyword(k).ValueSet(v))
	}
	return s.Once(ctx, Start{ID: id, Workflow: workflow, Input: input, Attrs: temporal.NewSearchAttributes(updates...)})
}

// Fairness is the priority of work done for the customer of ctx: the
// customer is the fairness key, so a queue's backlog is served round robin
// between customers rather than first in, first out. Activities and child
// workflows inherit it. Work of no customer has the empty key, which is
// one more participant of the round.
func Fairness(ctx context.Context) temporal.Priority {
	customer, _ := tenant.Customer(ctx)
	return temporal.Priority{FairnessKey: customer}
}
