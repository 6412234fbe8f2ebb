// Package rendering holds the activities of the render workflows: render
// one record, and signal the renders of the records a change concerns.
// Each kind of rendered record (wiki pages; later CMS pages) plugs in a
// Renderer.
package rendering

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/sdk/activity"

	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Renderer renders the records of one kind.
type Renderer interface {
	Render(ctx context.Context, id string) (contract.RenderOutput, error)
	// Affected lists the records that use the words or link to the targets.
	Affected(ctx context.Context, words, targets []string) ([]string, error)
}

// Signaller signals a workflow, starting it when none runs (temporalx.Starter).
type Signaller interface {
	SignalOrStart(ctx context.Context, st temporalx.Start, signal string) error
}

// Activities serve the render workflows.
type Activities struct {
	Renderers map[string]Renderer // by contract.RenderInput.Kind
	Workflows Signaller
}

// Render renders one record.
func (a *Activities) Render(ctx context.Context, in contract.RenderInput) (contract.RenderOutput, error) {
	r, err := a.renderer(in.Kind)
	if err != nil {
		return contract.RenderOutput{}, err
	}
	return r.Render(ctx, in.ID)
}

// SignalAffectedRenders signals the render of every record the change
// concerns, of in.Kind or, when it is empty, of every kind; a retry
// signals again, which costs a hash check each.
func (a *Activities) SignalAffectedRenders(ctx context.Context, in contract.AffectedInput) (contract.AffectedOutput, error) {
	kinds := []string{in.Kind}
	if in.Kind == "" {
		kinds = slices.Sorted(maps.Keys(a.Renderers))
	}
	var out contract.AffectedOutput
	for _, kind := range kinds {
		n, err := a.signalAffected(ctx, kind, in)
		out.Signalled += n
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func (a *Activities) signalAffected(ctx context.Context, kind string, in contract.AffectedInput) (int, error) {
	r, err := a.renderer(kind)
	if err != nil {
		return 0, err
	}
	ids, err := r.Affected(ctx, in.Words, in.Targets)
	if err != nil {
		return 0, err
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		activity.RecordHeartbeat(ctx, i)
		if err := a.Workflows.SignalOrStart(ctx, temporalx.RenderRecord(customer, kind, id), contract.SignalRenderChanged); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}

func (a *Activities) renderer(kind string) (Renderer, error) {
	if r, ok := a.Renderers[kind]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("rendering: no renderer for %q", kind)
}
