// Package system holds the activity of the SelfCheck workflow.
package system

import (
	"context"
	"fmt"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Activities are the self-check's activity with its dependency.
type Activities struct {
	Store store.Store
}

// SelfCheck writes a marker for the customer of ctx and reads it back.
func (a *Activities) SelfCheck(ctx context.Context, in contract.SelfCheckInput) (contract.SelfCheckResult, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return contract.SelfCheckResult{}, err
	}
	coll := a.Store.Collection("selfchecks")
	_, err = coll.Upsert(ctx, in.Marker, store.Update{Set: store.Doc{"checkedAt": time.Now().UTC()}})
	if err != nil {
		return contract.SelfCheckResult{}, fmt.Errorf("write marker: %w", err)
	}
	docs, err := coll.Find(ctx, store.FindOptions{Filter: query.ID(in.Marker), Limit: 1})
	if err != nil {
		return contract.SelfCheckResult{}, fmt.Errorf("read marker: %w", err)
	}
	return contract.SelfCheckResult{Customer: cust, Found: len(docs) == 1}, nil
}
