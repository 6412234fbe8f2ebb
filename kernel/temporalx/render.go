package temporalx

import (
	"platform/kernel/store"
	"platform/workflows/contract"
)

// RenderRecord is the start of the one render workflow of a customer's
// record (contract.RenderWorkflowID), to signal with
// contract.SignalRenderChanged; every writer that tells a render uses it.
func RenderRecord(customer, kind, id string) Start {
	return Start{ID: contract.RenderWorkflowID(customer, kind, id), Workflow: contract.WorkflowRenderRecord,
		Input: contract.RenderInput{Kind: kind, ID: id}, Attrs: contract.CustomerAttributes(customer)}
}

// RenderAffected is the start of a workflow that signals the renders of
// the records a change of shared inputs concerns (in.Kind "" for every
// kind); a new one per change.
func RenderAffected(customer string, in contract.AffectedInput) Start {
	return Start{ID: "render-affected-" + customer + "-" + store.NewID(), Workflow: contract.WorkflowRenderAffected,
		Input: in, Attrs: contract.CustomerAttributes(customer)}
}
