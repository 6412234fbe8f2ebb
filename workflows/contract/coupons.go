package contract

import "time"

// Coupon expiry: one workflow per coupon with a validUntil sleeps until
// then and expires the coupon (status expired, event coupons.expired).
// Writes that change validUntil signal it, and it reads the coupon again
// before acting, so a deadline moved either way is kept.
const (
	WorkflowCouponExpiry = "CouponExpiry"
	// ActivityCouponDeadline reads a coupon's current deadline.
	ActivityCouponDeadline = "CouponDeadline"
	// ActivityExpireCoupon expires a coupon whose deadline has passed.
	ActivityExpireCoupon = "ExpireCoupon"
	// SignalCouponChanged tells a running expiry that the coupon changed.
	SignalCouponChanged = "changed"
)

// CouponExpiryWorkflowID is the one expiry workflow of a customer's coupon.
func CouponExpiryWorkflowID(customer, coupon string) string {
	return "coupon-expiry-" + customer + "-" + coupon
}

// CouponInput names a coupon of the customer in the context.
type CouponInput struct {
	CouponID string
}

// CouponDeadline is when a coupon expires. Watch is false when nothing is
// left to wait for: the coupon is gone, already expired, or has no
// validUntil.
type CouponDeadline struct {
	Watch bool
	At    time.Time
}

// ExpireCouponInput expires the coupon if its validUntil is not after Now
// (the workflow's time when its timer fired).
type ExpireCouponInput struct {
	CouponID string
	Now      time.Time
}
