package coupon

import (
	"context"
	"errors"
	"slices"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// Request is one redemption: who redeems, for which order and products.
type Request struct {
	ConsumerID string
	OrderRef   string
	ProductIDs []string
}

// MaxProducts caps a coupon's applicableProducts and the products of one
// redemption.
const MaxProducts = 1000

// maxClaims bounds the attempts of one redemption racing others for the
// next free place; each lost race means another redemption succeeded.
const maxClaims = 64

// Redeem records one redemption of the coupon doc (as loaded) if its
// status, validity window, products and limits allow it, and answers the
// redemption record.
//
// The limits hold under any concurrency, on every store and across API
// replicas, because a redemption takes a numbered place that a unique
// index guards: place n of the coupon (n ≤ usageLimit) and place m of the
// consumer (m ≤ perUserLimit). A redemption counts those taken, claims the
// next ones, and counts again when another took them first. A counter
// updated in place would not do: FerretDB's findAndModify is not atomic
// across connections (NOTES.md), a unique index is.
func (s Service) Redeem(ctx context.Context, doc store.Doc, req Request, now time.Time) (store.Doc, error) {
	if err := redeemable(doc, req, now); err != nil {
		return nil, err
	}
	if err := s.consumerExists(ctx, req.ConsumerID); err != nil {
		return nil, err
	}
	for range maxClaims {
		next, err := s.nextPlaces(ctx, doc, req)
		if err != nil {
			return nil, err
		}
		out, err := s.Records.Insert(ctx, s.redemptions(), next)
		if !store.IsDuplicate(err) {
			return out, err
		}
	}
	return nil, &resource.Error{Kind: resource.KindUnavailable, RetryAfter: time.Second, Entries: []resource.ErrorEntry{
		resource.FieldError(resource.CodeUnavailable, "", "too many redemptions of this coupon at once; retry")}}
}

// nextPlaces is the redemption record claiming the next free places, or
// the limit that is reached.
func (s Service) nextPlaces(ctx context.Context, doc store.Doc, req Request) (store.Doc, error) {
	id := doc["_id"].(string)
	next := store.Doc{"coupon": id, "code": doc["code"], "consumer": req.ConsumerID}
	if req.OrderRef != "" {
		next["orderRef"] = req.OrderRef
	}
	if len(req.ProductIDs) > 0 {
		next["productIds"] = anySlice(req.ProductIDs)
	}
	if limit, ok := doc["usageLimit"].(int64); ok {
		place, err := s.nextPlace(ctx, query.Eq("coupon", id), limit, "usageLimit", "the coupon's usage limit of %d redemptions is reached")
		if err != nil {
			return nil, err
		}
		next["place"] = place
	}
	if limit, ok := doc["perUserLimit"].(int64); ok {
		mine := query.AllOf(query.Eq("coupon", id), query.Eq("consumer", req.ConsumerID))
		place, err := s.nextPlace(ctx, mine, limit, "perUserLimit", "this consumer has redeemed the coupon %d times, its per-user limit")
		if err != nil {
			return nil, err
		}
		next["userPlace"] = place
	}
	return next, nil
}

func (s Service) nextPlace(ctx context.Context, taken query.Expr, limit int64, field, full string) (int64, error) {
	n, err := s.Records.Store.Collection(RedemptionsCollection).Count(ctx, taken)
	if err != nil {
		return 0, err
	}
	if n >= limit {
		return 0, resource.Conflict(field, full, limit)
	}
	return n + 1, nil
}

func (s Service) consumerExists(ctx context.Context, id string) error {
	_, err := s.Records.Store.Collection("consumers").Get(ctx, id, "_id")
	if errors.Is(err, store.ErrNotFound) {
		return resource.InvalidField("consumerId", "no consumer of this customer has the id %s", id)
	}
	return err
}

// redeemable refuses a redemption the coupon's state does not allow, with
// the reason.
func redeemable(doc store.Doc, req Request, now time.Time) error {
	if len(req.ProductIDs) > MaxProducts {
		return resource.InvalidField("productIds", "at most %d products", MaxProducts)
	}
	switch doc["_status"] {
	case StatusPaused:
		return resource.Conflict("_status", "the coupon is paused")
	case StatusExpired:
		return resource.Conflict("_status", "the coupon has expired")
	}
	if from, ok := doc["validFrom"].(time.Time); ok && now.Before(from) {
		return resource.Conflict("validFrom", "the coupon is valid from %s", from.Format(time.RFC3339))
	}
	if until, ok := doc["validUntil"].(time.Time); ok && now.After(until) {
		return resource.Conflict("validUntil", "the coupon was valid until %s", until.Format(time.RFC3339))
	}
	return applicable(doc, req)
}

// applicable checks the products of a coupon limited to some: the
// redemption must name at least one of them.
func applicable(doc store.Doc, req Request) error {
	allowed := store.Strings(doc["applicableProducts"])
	if len(allowed) == 0 {
		return nil
	}
	if len(req.ProductIDs) == 0 {
		return resource.InvalidField("productIds", "the coupon applies to some products only: name the products of the order")
	}
	for _, p := range req.ProductIDs {
		if slices.Contains(allowed, p) {
			return nil
		}
	}
	return resource.Conflict("applicableProducts", "the coupon applies to none of the products named")
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}
