package temporalx

import (
	"context"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"platform/workflows/contract"
)

// SignalOrStart sends signal (no payload) to the running workflow with
// st's id, or starts st and hands it the signal, in one call: one run per
// id at a time (a closed run does not block a new one), and a run that is
// just completing cannot lose the signal (the server makes it see the
// signal first). The customer in ctx goes along as with every start, and
// the workflow runs on its kind's queue with the customer as fairness key.
func (s *Starter) SignalOrStart(ctx context.Context, st Start, signal string) error {
	_, err := s.Client.SignalWithStartWorkflow(ctx, st.ID, signal, nil, client.StartWorkflowOptions{
		ID:                       st.ID,
		TaskQueue:                contract.QueueOf(s.TaskQueue, st.Workflow),
		Priority:                 Fairness(ctx),
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    st.Attrs,
	}, st.Workflow, st.Input)
	return err
}
