package tenant

import (
	"context"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// HeaderKey is the Temporal header carrying the customer.
const HeaderKey = "platform-customer"

type workflowKey struct{}

// Propagator carries the customer from the starter's ctx into workflows and
// from workflows into activities, where tenant.Customer finds it again. A
// workflow or activity started without one has no customer, and every
// scoped store call it makes fails (closed, not open).
type Propagator struct{}

var _ workflow.ContextPropagator = Propagator{}

// Inject implements workflow.ContextPropagator.
func (Propagator) Inject(ctx context.Context, w workflow.HeaderWriter) error {
	c, err := Customer(ctx)
	if err != nil {
		return nil
	}
	return write(c, w)
}

// InjectFromWorkflow implements workflow.ContextPropagator.
func (Propagator) InjectFromWorkflow(ctx workflow.Context, w workflow.HeaderWriter) error {
	c, _ := ctx.Value(workflowKey{}).(string)
	if c == "" {
		return nil
	}
	return write(c, w)
}

// Extract implements workflow.ContextPropagator.
func (Propagator) Extract(ctx context.Context, r workflow.HeaderReader) (context.Context, error) {
	c, err := read(r)
	if err != nil || c == "" {
		return ctx, err
	}
	return WithCustomer(ctx, c), nil
}

// ExtractToWorkflow implements workflow.ContextPropagator.
func (Propagator) ExtractToWorkflow(ctx workflow.Context, r workflow.HeaderReader) (workflow.Context, error) {
	c, err := read(r)
	if err != nil || c == "" {
		return ctx, err
	}
	return workflow.WithValue(ctx, workflowKey{}, c), nil
}

// WorkflowCustomer returns the customer a workflow runs for.
func WorkflowCustomer(ctx workflow.Context) (string, error) {
	c, _ := ctx.Value(workflowKey{}).(string)
	if c == "" {
		return "", ErrMissing
	}
	return c, nil
}

func write(c string, w workflow.HeaderWriter) error {
	p, err := converter.GetDefaultDataConverter().ToPayload(c)
	if err != nil {
		return err
	}
	w.Set(HeaderKey, p)
	return nil
}

func read(r workflow.HeaderReader) (string, error) {
	p, ok := r.Get(HeaderKey)
	if !ok {
		return "", nil
	}
	var c string
	err := converter.GetDefaultDataConverter().FromPayload(p, &c)
	return c, err
}
