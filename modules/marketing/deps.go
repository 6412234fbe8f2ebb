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

// Deps are what the marketing module uses beyond the record service;
// zero ones leave out what needs them (the declarations alone need none).
// Without Workflows, scheduling newsletters and coupon deadlines answer
// 503; without Sender, send-test does; without Intake, the mail
// provider's intake is not served.
type Deps struct {
	Workflows Signaller
	Sender    *newsletter.Sender
	Intake    *Intake
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
		Attrs: customerAttr(customer),
	}
	if err := d.Workflows.SignalOrStart(ctx, st, contract.SignalNewsletterChanged); err != nil {
		return resource.Unavailable("the newsletter's send could not be scheduled; try again").WithCause(err)
	}
	return nil
}

// watchCoupon tells the coupon's expiry workflow that its deadline
// moved, starting it when none runs.
func (d Deps) watchCoupon(ctx context.Context, id string) error {
	if d.Workflows == nil {
		return resource.Unavailable("coupon deadlines need the workflow service, which this process lacks")
	}
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	st := temporalx.Start{ID: contract.CouponExpiryWorkflowID(customer, id), Workflow: contract.WorkflowCouponExpiry,
		Input: contract.CouponInput{CouponID: id}, Attrs: customerAttr(customer)}
	if err := d.Workflows.SignalOrStart(ctx, st, contract.SignalCouponChanged); err != nil {
		return resource.Unavailable("the coupon's deadline could not be scheduled; try the write again").WithCause(err)
	}
	return nil
}

func customerAttr(customer string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(temporal.NewSearchAttributeKeyKeyword(contract.AttrCustomer).ValueSet(customer))
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
