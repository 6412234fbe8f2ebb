package app

import (
	"platform/activities/coupons"
	"platform/modules/marketing/coupon"
)

// marketingActivities serve the marketing workflows (coupon expiry).
func (a *App) couponActivities() *coupons.Activities {
	return &coupons.Activities{Coupons: coupon.Service{Records: a.Service}}
}
