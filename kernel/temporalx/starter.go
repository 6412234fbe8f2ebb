package temporalx

import (
	"context"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// Starter starts workflows on the platform's task queue under
// deterministic ids, so that a start repeated after a crash, by a second
// replica or by a retried request starts the work once.
type Starter struct {
	Client    client.Client
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
		TaskQueue:             s.TaskQueue,
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
