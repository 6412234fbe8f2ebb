package app

import (
	"context"

	"platform/activities/marketing"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	marketingmod "platform/modules/marketing"
	"platform/modules/marketing/coupon"
	"platform/workflows/contract"
)

// couponWatcher starts or signals a coupon's expiry workflow.
type couponWatcher struct{ starter *temporalx.Starter }

// Watch implements marketing.ExpiryWatcher.
func (w couponWatcher) Watch(ctx context.Context, id string) error {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	return w.starter.SignalOrStart(ctx, temporalx.Start{
		ID: contract.CouponExpiryWorkflowID(customer, id), Workflow: contract.WorkflowCouponExpiry,
		Input: contract.CouponInput{CouponID: id},
	}, contract.SignalCouponChanged)
}

// couponExpiry watches coupon deadlines; nil in a process without
// Temporal.
func (a *App) couponExpiry() marketingmod.ExpiryWatcher {
	if a.Temporal == nil {
		return nil // a zero couponWatcher would be a non-nil ExpiryWatcher
	}
	return couponWatcher{starter: a.starter(a.Config.TaskQueue)}
}

// marketingActivities serve the marketing workflows.
func (a *App) marketingActivities() *marketing.Activities {
	return &marketing.Activities{Coupons: coupon.Service{Records: a.Service}}
}
