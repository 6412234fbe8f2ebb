// Package maintenance holds the activities of the platform's housekeeping
// workflows: removing what expired or is past its retention. Each works through an interface it
// declares, satisfied by the module that owns the data (the composition
// root wires them), so the worker's activities never import a module's
// HTTP side.
package maintenance

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"

	"platform/workflows/contract"
)

// OAuthSweeper removes what expired from the OAuth service's collections
// (oauth.Sweeper): documents removed per collection, and whether expired
// ones are left for another call.
type OAuthSweeper interface {
	Sweep(ctx context.Context, now time.Time) (removed map[string]int64, more bool, err error)
}

// RetentionPruner removes, for one customer, what is past its retention
// (automation.Retention): at most limit records of a kind per call, and
// the subscription patterns nothing uses.
type RetentionPruner interface {
	Prune(ctx context.Context, customer, kind string, now time.Time, limit int) (int64, error)
	PruneSubscriptions(ctx context.Context, customer string, now time.Time) (int64, error)
}

// CustomerLister pages through the customer ids (identity.Service).
type CustomerLister interface {
	CustomerIDs(ctx context.Context, skip, limit int64) ([]string, error)
}

// Defaults of Activities.Batch and Activities.CustomersPerRound.
const (
	DefaultBatch             = 500
	DefaultCustomersPerRound = 100
)

// Activities are the housekeeping activities (worker.Register gives them
// their contract names).
type Activities struct {
	OAuth     OAuthSweeper
	Retention RetentionPruner
	Customers CustomerLister
	// Batch bounds the records one PruneRecords call removes (default
	// DefaultBatch), so one call never holds the store for long.
	Batch int
	// CustomersPerRound bounds the customers one call visits (default
	// DefaultCustomersPerRound), so a call with little to remove is short.
	CustomersPerRound int
}

// SweepOAuth runs one bounded round of the OAuth sweep.
func (a *Activities) SweepOAuth(ctx context.Context) (contract.OAuthSweepRound, error) {
	removed, more, err := a.OAuth.Sweep(ctx, time.Now())
	if err != nil {
		return contract.OAuthSweepRound{}, fmt.Errorf("oauth sweep: %w", err)
	}
	return contract.OAuthSweepRound{Removed: removed, More: more}, nil
}

// PruneRecords removes at most Batch records of in.Kind past their
// retention, visiting customers from in.Offset. When the batch fills up
// it stops at that customer, who may have more (Next points at them);
// otherwise it goes on to the end of the page. It heartbeats each
// customer, so a lost worker is noticed before the timeout.
func (a *Activities) PruneRecords(ctx context.Context, in contract.PruneInput) (contract.PruneRound, error) {
	custs, err := a.customerPage(ctx, in.Offset)
	if err != nil {
		return contract.PruneRound{}, err
	}
	now, budget := time.Now(), orDefault(a.Batch, DefaultBatch)
	var removed int64
	for i, c := range custs {
		n, err := a.Retention.Prune(ctx, c, in.Kind, now, budget-int(removed))
		removed += n
		if err != nil {
			return contract.PruneRound{Removed: removed}, fmt.Errorf("prune %s of customer %s: %w", in.Kind, c, err)
		}
		activity.RecordHeartbeat(ctx, in.Offset+int64(i))
		if int(removed) >= budget {
			return contract.PruneRound{Removed: removed, Next: in.Offset + int64(i)}, nil
		}
	}
	return a.pageDone(in.Offset, custs, removed), nil
}

// PruneSubscriptions prunes the event-subscription sets of a page of
// customers from in.Offset.
func (a *Activities) PruneSubscriptions(ctx context.Context, in contract.PruneInput) (contract.PruneRound, error) {
	custs, err := a.customerPage(ctx, in.Offset)
	if err != nil {
		return contract.PruneRound{}, err
	}
	now := time.Now()
	var removed int64
	for i, c := range custs {
		n, err := a.Retention.PruneSubscriptions(ctx, c, now)
		removed += n
		if err != nil {
			return contract.PruneRound{Removed: removed}, fmt.Errorf("prune subscriptions of customer %s: %w", c, err)
		}
		activity.RecordHeartbeat(ctx, in.Offset+int64(i))
	}
	return a.pageDone(in.Offset, custs, removed), nil
}

func (a *Activities) customerPage(ctx context.Context, offset int64) ([]string, error) {
	custs, err := a.Customers.CustomerIDs(ctx, offset, int64(a.perRound()))
	if err != nil {
		return nil, fmt.Errorf("list customers: %w", err)
	}
	return custs, nil
}

// pageDone answers a round that saw its whole page: the next starts after
// it, and a short page was the last.
func (a *Activities) pageDone(offset int64, custs []string, removed int64) contract.PruneRound {
	return contract.PruneRound{Removed: removed, Next: offset + int64(len(custs)), Done: len(custs) < a.perRound()}
}

func (a *Activities) perRound() int { return orDefault(a.CustomersPerRound, DefaultCustomersPerRound) }

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
