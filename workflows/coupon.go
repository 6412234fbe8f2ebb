package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// maxExpiryWaits bounds one run's history; a coupon whose deadline keeps
// moving continues as new.
const maxExpiryWaits = 500

var couponOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
}

// CouponExpiry expires one coupon when its validUntil passes. It reads the
// deadline from the coupon, sleeps until then (the timer the Temporal UI
// shows), and reads it again whenever a write signals a change, so a
// deadline moved later or earlier is kept; it ends once the coupon is
// expired, gone or has no deadline.
func CouponExpiry(ctx workflow.Context, in contract.CouponInput) error {
	ctx = workflow.WithActivityOptions(ctx, couponOptions)
	changed := workflow.GetSignalChannel(ctx, contract.SignalCouponChanged)
	for range maxExpiryWaits {
		for changed.ReceiveAsync(nil) {
		}
		var d contract.CouponDeadline
		if err := workflow.ExecuteActivity(ctx, contract.ActivityCouponDeadline, in).Get(ctx, &d); err != nil {
			return faultReported(ctx, "workflow CouponExpiry, read the deadline", err)
		}
		if !d.Watch {
			return nil
		}
		if wait := d.At.Sub(workflow.Now(ctx)); wait > 0 && !sleepOrSignal(ctx, wait, changed, func() {}) {
			continue // a write changed the coupon: read it again
		}
		expire := contract.ExpireCouponInput{CouponID: in.CouponID, Now: workflow.Now(ctx)}
		if err := workflow.ExecuteActivity(ctx, contract.ActivityExpireCoupon, expire).Get(ctx, nil); err != nil {
			return faultReported(ctx, "workflow CouponExpiry, expire", err)
		}
	}
	return workflow.NewContinueAsNewError(ctx, contract.WorkflowCouponExpiry, in)
}

// sleepOrSignal waits d or until a signal on ch, which it receives and
// hands to got; true when the time ran out. A timer a signal cut short is
// cancelled. The retrier, newsletter and coupon workflows all wait so.
func sleepOrSignal(ctx workflow.Context, d time.Duration, ch workflow.ReceiveChannel, got func()) bool {
	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	fired := false
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(workflow.NewTimer(tctx, d), func(workflow.Future) { fired = true })
	sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		got()
	})
	sel.Select(ctx)
	return fired
}
