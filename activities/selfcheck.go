package activities

import (
	"context"
	"fmt"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// SelfCheckInput is the marker to write.
type SelfCheckInput struct{ Marker string }

// SelfCheckOutput is what the activity found.
type SelfCheckOutput struct {
	Customer string
	Found    bool
}

// SelfCheck writes a marker for the customer of ctx and reads it back.
func (a *Activities) SelfCheck(ctx context.Context, in SelfCheckInput) (SelfCheckOutput, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return SelfCheckOutput{}, err
	}
	coll := a.Store.Collection("selfchecks")
	_, err = coll.Upsert(ctx, in.Marker, store.Update{Set: store.Doc{"checkedAt": time.Now().UTC()}})
	if err != nil {
		return SelfCheckOutput{}, fmt.Errorf("write marker: %w", err)
	}
	docs, err := coll.Find(ctx, store.FindOptions{Filter: query.ID(in.Marker), Limit: 1})
	if err != nil {
		return SelfCheckOutput{}, fmt.Errorf("read marker: %w", err)
	}
	return SelfCheckOutput{Customer: cust, Found: len(docs) == 1}, nil
}
