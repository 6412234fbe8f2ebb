package coupon

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Pause stops redemptions of an active coupon. changed is false when it
// was paused already (a repeated call).
func (s Service) Pause(ctx context.Context, doc store.Doc) (out store.Doc, changed bool, err error) {
	switch doc["_status"] {
	case StatusPaused:
		return doc, false, nil
	case StatusExpired:
		return nil, false, resource.Conflict("_status", "the coupon has expired: only resume applies to it, once its validUntil is in the future")
	}
	return s.move(ctx, doc, StatusActive, StatusPaused)
}

// Resume makes a paused coupon active again, and an expired one whose
// validUntil was moved into the future (or removed).
func (s Service) Resume(ctx context.Context, doc store.Doc, now time.Time) (out store.Doc, changed bool, err error) {
	switch doc["_status"] {
	case StatusActive:
		return doc, false, nil
	case StatusExpired:
		if until, ok := doc["validUntil"].(time.Time); ok && !until.After(now) {
			return nil, false, resource.Conflict("validUntil", "the coupon's validUntil (%s) has passed: move it into the future to resume the coupon", until.Format(time.RFC3339))
		}
	}
	return s.move(ctx, doc, doc["_status"], StatusActive)
}

// move changes the status from one value to another, only if no other
// call changed it meanwhile.
func (s Service) move(ctx context.Context, doc store.Doc, from any, to string) (store.Doc, bool, error) {
	where := query.AllOf(query.ID(doc["_id"].(string)), query.Eq("_status", from))
	out, err := s.Records.Apply(ctx, s.coupons(), where, resource.Change{Set: store.Doc{"_status": to}})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil, false, resource.Conflict("_status", "the coupon's status changed meanwhile; read it and try again")
	}
	return out, err == nil, err
}
