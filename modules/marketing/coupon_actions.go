package marketing

import (
	"context"
	"time"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/marketing/coupon"
)

// watchExpiry tells the coupon's expiry workflow about the write, after
// it is stored (the workflow reads the coupon, so it must see the saved
// one): every write of a coupon that has or had a validUntil, so that a
// write retried after a failed signal (a 503) signals again. Signals are
// cheap; a workflow with nothing to wait for ends.
func watchExpiry(d Deps) func(context.Context, *resource.Service, store.Doc, store.Doc) error {
	return func(ctx context.Context, _ *resource.Service, saved, old store.Doc) error {
		if saved["validUntil"] == nil && (old == nil || old["validUntil"] == nil) {
			return nil
		}
		return d.watchCoupon(ctx, saved["_id"].(string))
	}
}

func service(call *resource.ActionCall) coupon.Service { return coupon.Service{Records: call.Service} }

func pauseCoupon(Deps) func(context.Context, *resource.ActionCall) (*resource.ActionResult, error) {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		out, changed, err := service(call).Pause(ctx, call.Record)
		return moved(out, changed, err)
	}
}

func resumeCoupon(Deps) func(context.Context, *resource.ActionCall) (*resource.ActionResult, error) {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		out, changed, err := service(call).Resume(ctx, call.Record, time.Now().UTC())
		return moved(out, changed, err)
	}
}

func moved(out store.Doc, changed bool, err error) (*resource.ActionResult, error) {
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: out, NoEvent: !changed}, nil
}

func redeemCoupon(Deps) func(context.Context, *resource.ActionCall) (*resource.ActionResult, error) {
	return func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
		req := coupon.Request{ConsumerID: call.Body["consumerId"].(string), ProductIDs: store.Strings(call.Body["productIds"])}
		req.OrderRef, _ = call.Body["orderRef"].(string)
		out, err := service(call).Redeem(ctx, call.Record, req, time.Now().UTC())
		if err != nil {
			return nil, err
		}
		return &resource.ActionResult{Payload: out, EventData: out}, nil
	}
}
