package marketing

import (
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/marketing/coupon"
)

// CouponRedemptions declares the read-only /couponredemptions, written by
// the redeem action. Reading them needs marketing.coupons.view, a CSV or
// YAML export marketing.coupons.export.
func CouponRedemptions() *resource.Resource {
	return &resource.Resource{
		Plural: coupon.RedemptionsCollection, Title: "coupon redemption", ReadOnly: true, Export: true,
		Rights: resource.Rights{View: "marketing.coupons.view", Export: "marketing.coupons.export"},
		Fields: []resource.Field{
			{Name: "coupon", Type: resource.TObjectID, Filter: true, Description: "the coupon redeemed"},
			{Name: "code", Type: resource.TString, Filter: true, Sort: true, Description: "the coupon's code when redeemed"},
			{Name: "consumer", Type: resource.TObjectID, Filter: true},
			{Name: "orderRef", Type: resource.TString, Filter: true},
			{Name: "productIds", Type: resource.TArray, Items: &resource.Field{Type: resource.TString}},
			{Name: "place", Type: resource.TInteger, Description: "n for the coupon's n-th redemption, when it has a usageLimit"},
			{Name: "userPlace", Type: resource.TInteger, Description: "n for the consumer's n-th redemption, when the coupon has a perUserLimit"},
		},
		Indexes: []store.Index{
			// The places a unique index guards are what enforce the limits
			// (coupon.Service.Redeem); sparse, as coupons without limits
			// leave them out.
			{Name: "uniq_place", Keys: []store.SortField{{Field: "place"}, {Field: "coupon"}}, Unique: true, Sparse: true},
			{Name: "uniq_userPlace", Keys: []store.SortField{{Field: "userPlace"}, {Field: "coupon"}, {Field: "consumer"}}, Unique: true, Sparse: true},
			{Name: "coupon_consumer", Keys: []store.SortField{{Field: "coupon"}, {Field: "consumer"}}},
		},
		DefaultSort: []store.SortField{{Field: "createdAt", Desc: true}},
	}
}
