// Package coupon is the marketing module's coupon service: status moves,
// expiry and redemption under the usage limits. HTTP actions, the expiry
// workflow's activities and tests all call it; it writes through the
// record service.
package coupon

import (
	"context"
	"errors"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/workflows/contract"
)

// Collections and the module that declares them.
const (
	Module                = "marketing"
	Collection            = "coupons"
	RedemptionsCollection = "couponredemptions"
)

// Statuses of a coupon (_status).
const (
	StatusActive  = "active"
	StatusPaused  = "paused"
	StatusExpired = "expired"
)

// Event verbs beyond the writes: coupons.expired, coupons.redeemed, ...
const (
	EventExpired  = "expired"
	EventPaused   = "paused"
	EventResumed  = "resumed"
	EventRedeemed = "redeemed"
)

// Service runs the coupon rules over the record service.
type Service struct {
	Records *resource.Service
}

func (s Service) coupons() *resource.Resource {
	return s.Records.Registry.Get(Module, Collection)
}

func (s Service) redemptions() *resource.Resource {
	return s.Records.Registry.Get(Module, RedemptionsCollection)
}

// Deadline is the coupon's current expiry, for the expiry workflow.
func (s Service) Deadline(ctx context.Context, id string) (contract.CouponDeadline, error) {
	doc, err := s.Records.Store.Collection(Collection).Get(ctx, id, "_status", "validUntil")
	if errors.Is(err, store.ErrNotFound) {
		return contract.CouponDeadline{}, nil
	}
	if err != nil {
		return contract.CouponDeadline{}, err
	}
	until, ok := doc["validUntil"].(time.Time)
	if !ok || doc["_status"] == StatusExpired {
		return contract.CouponDeadline{}, nil
	}
	return contract.CouponDeadline{Watch: true, At: until}, nil
}

// Expire moves the coupon to expired if its validUntil is not after now;
// a coupon already expired, gone or given a later deadline is left as it
// is, so a repeated or late call changes nothing.
func (s Service) Expire(ctx context.Context, id string, now time.Time) error {
	where := query.AllOf(query.ID(id),
		query.Field{Path: "_status", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: StatusExpired}}},
		query.Field{Path: "validUntil", Conds: []query.Cond{query.Compare{Op: query.OpLte, Value: now.UTC()}}})
	_, err := s.Records.Apply(ctx, s.coupons(), where, resource.Change{Set: store.Doc{"_status": StatusExpired}, Event: EventExpired})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil
	}
	return err
}
