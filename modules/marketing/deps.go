package marketing

import (
	"context"
	"time"

	"go.temporal.io/sdk/temporal"

	"platform/kernel/resource"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/marketing/newsletter"
	"platform/workflows/contract"
)

// Deps are what the newsletters need beyond the record service. Without
// Workflows, scheduling answers 503; without Sender, send-test does.
type Deps struct {
	Workflows Signaller
	Sender    *newsletter.Sender
}

// Signaller signals a workflow, starting it first if it is not running
// (temporalx.Starter).
type Signaller interface {
	SignalOrStart(ctx context.Context, st temporalx.Start, signal string) error
}

// wake tells the newsletter's workflow that the record changed, starting
// it when none runs.
func (d Deps) wake(ctx context.Context, id string) error {
	if d.Workflows == nil {
		return resource.Unavailable("scheduling newsletters is unavailable in this process")
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	st := temporalx.Start{
		ID: contract.NewsletterWorkflowID(customer, id), Workflow: contract.WorkflowNewsletterSend,
		Input: contract.NewsletterInput{NewsletterID: id},
		Attrs: temporal.NewSearchAttributes(temporal.NewSearchAttributeKeyKeyword(contract.AttrCustomer).ValueSet(customer)),
	}
	if err := d.Workflows.SignalOrStart(ctx, st, contract.SignalNewsletterChanged); err != nil {
		return resource.Unavailable("the newsletter's send could not be scheduled; try again").WithCause(err)
	}
	return nil
}

// wakeIfActive wakes the workflow of a deleted newsletter that was
// scheduled or sending, so it ends.
func (d Deps) wakeIfActive(ctx context.Context, old map[string]any) error {
	switch old["_status"] {
	case newsletter.StatusScheduled, newsletter.StatusSending:
		return d.wake(ctx, idOf(old))
	}
	return nil
}

// now is a write's time at the millisecond precision stores keep.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
