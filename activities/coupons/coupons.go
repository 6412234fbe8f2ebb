// Package coupons holds the activities of the coupon expiry workflow.
package coupons

import (
	"context"

	"platform/modules/marketing/coupon"
	"platform/workflows/contract"
)

// Activities serve the marketing workflows through the module's services.
type Activities struct {
	Coupons coupon.Service
}

// CouponDeadline reads a coupon's current validUntil.
func (a *Activities) CouponDeadline(ctx context.Context, in contract.CouponInput) (contract.CouponDeadline, error) {
	return a.Coupons.Deadline(ctx, in.CouponID)
}

// ExpireCoupon expires the coupon if its validUntil has passed.
func (a *Activities) ExpireCoupon(ctx context.Context, in contract.ExpireCouponInput) error {
	return a.Coupons.Expire(ctx, in.CouponID, in.Now)
}
