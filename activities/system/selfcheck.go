// Package system holds the activities every workflow may use: the
// self-check's, and the filing of the platform's own faults as Bug tasks.
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

// Activities are the system activities with their dependencies.
type Activities struct {
	Store store.Store
	// Bugs files faults as Bug tasks (crm's bugs.Recorder); nil files none.
	Bugs Bugs
}

// Bugs files a fault of the platform for the customer of ctx.
type Bugs interface {
	ReportFault(ctx context.Context, where, debugID, kind string)
}

// ReportBug files a workflow's fault as a Bug task of its customer (one
// per signature, counted). It never fails the workflow that reports.
func (a *Activities) ReportBug(ctx context.Context, in contract.ReportBugInput) error {
	if a.Bugs != nil {
		a.Bugs.ReportFault(ctx, in.Where, in.DebugID, in.Kind)
	}
	return nil
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
