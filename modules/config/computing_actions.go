package config

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/config/computing"
	"platform/workflows/contract"
)

// Rights of the computing actions, beyond the generic verbs.
const (
	RightComputingStart     = "config.computingentities.start"
	RightComputingStop      = "config.computingentities.stop"
	RightComputingTerminate = "config.computingentities.terminate"
)

// ComputingDeps configure the computing actions.
type ComputingDeps struct {
	// Available is false when no provider is configured: the actions
	// answer 503 naming PLATFORM_COMPUTE_URL.
	Available bool
	// Poll and Deadline go to each action's workflow.
	Poll     time.Duration
	Deadline time.Duration
}

type computingHandlers struct{ d ComputingDeps }

func (h *computingHandlers) action(name, title, right string) resource.Action {
	return resource.Action{Name: name, Title: title, Right: right, Accepted: true,
		Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
			return h.move(ctx, call, name)
		}}
}

// claimAndStartTimeout bounds the claim and the workflow start together.
const claimAndStartTimeout = 30 * time.Second

// move claims the entity for the action (pendingAction, workflowId) and
// starts the action's workflow. The same action asked again while it is
// under way answers the same claim and starts its workflow if it is not
// running yet (a start lost to a crash), so a retried request is safe.
func (h *computingHandlers) move(ctx context.Context, call *resource.ActionCall, action string) (*resource.ActionResult, error) {
	if !h.d.Available || call.Service.Workflows == nil {
		return nil, resource.Unavailable("no compute provider is configured in this process: set PLATFORM_COMPUTE_URL (and a worker)")
	}
	// A client that hangs up between the claim and the start must not
	// leave the entity pending on a workflow nobody started: the pair runs
	// to its end on a context of its own, bounded in time.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimAndStartTimeout)
	defer cancel()
	rec, err := h.claim(ctx, call, action)
	if err != nil {
		return nil, err
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	in := contract.ComputingActionInput{EntityID: call.ID, Action: action, Poll: h.d.Poll, Deadline: time.Now().Add(h.d.Deadline).UTC()}
	id, _ := rec[computing.FieldWorkflowID].(string)
	if _, err := call.Service.Workflows.StartOnce(ctx, id, map[string]string{contract.AttrCustomer: cust}, contract.WorkflowComputingAction, in); err != nil {
		return nil, resource.Unavailable("the %s could not be started; ask again (the entity shows it pending until then)", action).WithCause(err)
	}
	return &resource.ActionResult{Payload: rec, NoEvent: true}, nil
}

// claim marks the entity pending on a new workflow id, unless the same
// action is pending already; it refuses a move its state does not allow.
func (h *computingHandlers) claim(ctx context.Context, call *resource.ActionCall, action string) (store.Doc, error) {
	rec := call.Record
	field := computing.StateField(str(rec[computing.FieldType]))
	state := str(rec[field])
	switch pending := str(rec[computing.FieldPendingAction]); {
	case pending == action:
		return rec, nil
	case pending != "":
		return nil, resource.Conflict(computing.FieldPendingAction, "a %s is under way (workflow %v); ask again once it has landed", pending, rec[computing.FieldWorkflowID])
	case state == computing.Terminated:
		return nil, resource.Conflict(field, "the entity is terminated, which is final: it cannot %s", action)
	case !computing.Allowed(action, state):
		return nil, resource.Conflict(field, "the entity is %s: it cannot %s", state, action)
	}
	cust, _ := tenant.Customer(ctx)
	wf := contract.ComputingWorkflowID(cust, call.ID, action, store.NewID())
	where := query.AllOf(query.ID(call.ID), query.Eq(field, state), query.Field{Path: computing.FieldPendingAction, Conds: []query.Cond{query.Exists{Want: false}}})
	doc, err := call.Service.Apply(ctx, call.Resource, where, resource.Change{Set: store.Doc{computing.FieldPendingAction: action, computing.FieldWorkflowID: wf}})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil, resource.Conflict(field, "the entity changed meanwhile (another action began); read it and ask again")
	}
	return doc, err
}
