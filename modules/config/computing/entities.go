package computing

import (
	"context"
	"errors"
	"time"

	"platform/kernel/outbound"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Module is the module computing entities are declared in.
const Module = "config"

// Entities moves computing entities at their provider, for the action
// workflow's activities; every write goes through the record service.
type Entities struct {
	Records  *resource.Service
	Provider Provider
}

func (e *Entities) resource() *resource.Resource { return e.Records.Registry.Get(Module, Collection) }

// ref loads the entity and names its machine at the provider.
func (e *Entities) ref(ctx context.Context, id string) (Ref, error) {
	rec, err := e.Records.Load(ctx, e.resource(), id)
	if err != nil {
		return Ref{}, err
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return Ref{}, err
	}
	ref := Ref{ID: id, Customer: cust}
	ref.Type, _ = rec[FieldType].(string)
	if inst, _ := rec[FieldInstanceID].(string); inst != "" {
		ref.ID = inst
	}
	return ref, nil
}

// ErrNoProvider: the worker has no compute provider configured.
var ErrNoProvider = errors.New("computing: no compute provider is configured in the worker (PLATFORM_COMPUTE_URL)")

// Request asks the provider for the action on the entity.
func (e *Entities) Request(ctx context.Context, in contract.ComputingActionInput) (contract.ComputingMachine, error) {
	if e.Provider == nil {
		return contract.ComputingMachine{}, ErrNoProvider
	}
	ref, err := e.ref(ctx, in.EntityID)
	if err != nil {
		return contract.ComputingMachine{}, err
	}
	m, err := e.Provider.Request(ctx, Move{Ref: ref, Action: in.Action})
	return classify(m, in.Action), err
}

// Read reads the entity's machine at the provider.
func (e *Entities) Read(ctx context.Context, in contract.ComputingActionInput) (contract.ComputingMachine, error) {
	if e.Provider == nil {
		return contract.ComputingMachine{}, ErrNoProvider
	}
	ref, err := e.ref(ctx, in.EntityID)
	if err != nil {
		return contract.ComputingMachine{}, err
	}
	m, err := e.Provider.Machine(ctx, ref)
	return classify(m, in.Action), err
}

func classify(m Machine, action string) contract.ComputingMachine {
	return contract.ComputingMachine{State: m.State, Moving: Transitional(m.State), Landed: m.State == Target(action)}
}

// Settle writes the action's outcome into the entity: the provider's
// stable state into its state field, the pending action cleared, the
// last action recorded, and the event (started, stopped, terminated or
// actionfailed). It changes only an entity still pending on this
// workflow, so a retried settle writes and announces once; a deleted
// entity is left alone.
func (e *Entities) Settle(ctx context.Context, in contract.ComputingSettleInput) error {
	r := e.resource()
	rec, err := e.Records.Load(ctx, r, in.EntityID)
	if resource.KindOf(err) == resource.KindNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	c := resource.Change{Set: store.Doc{FieldLastAction: lastAction(in)}, Unset: []string{FieldPendingAction}, Event: DoneEvent(in.Action)}
	if in.Failure != "" {
		c.Event = EventFailed
	}
	if isState(in.State) {
		c.Set[StateField(str(rec[FieldType]))] = in.State
	}
	where := query.AllOf(query.ID(in.EntityID), query.Eq(FieldWorkflowID, in.WorkflowID), query.Eq(FieldPendingAction, in.Action))
	_, err = e.Records.Apply(ctx, r, where, c)
	if resource.KindOf(err) == resource.KindNotFound {
		return nil // settled already (a retry), or another action took over
	}
	return err
}

// maxFailure bounds the reason a failed action records.
const maxFailure = 1000

func lastAction(in contract.ComputingSettleInput) store.Doc {
	d := store.Doc{"name": in.Action, "workflowId": in.WorkflowID, "outcome": "done", "finishedAt": time.Now().UTC().Truncate(time.Millisecond)}
	if in.Failure != "" {
		d["outcome"], d["failure"] = "failed", outbound.Bound(in.Failure, maxFailure)
	}
	return d
}

func str(v any) string { s, _ := v.(string); return s }
