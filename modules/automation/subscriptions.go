package automation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/runs"
	"platform/modules/automation/webhook"
	"platform/modules/identity"
)

// subscriptionsBackfill marks, in the global migrations collection, that
// every customer's event patterns have been recorded.
const (
	migrations            = "migrations"
	subscriptionsBackfill = "event-subscriptions-v1"
)

// BackfillSubscriptions records the event patterns of webhooks and
// triggers stored before events.Subscriptions existed, once per store:
// without them their events would be marked dispatched and never
// delivered. Later writes record their own patterns (the hooks).
func BackfillSubscriptions(ctx context.Context, st store.Store) error {
	if _, err := st.Global(migrations).Get(ctx, subscriptionsBackfill); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	const page = 500
	for skip := int64(0); ; skip += page {
		custs, err := st.Global(identity.Customers).Find(ctx, store.FindOptions{Fields: []string{"_id"}, Skip: skip, Limit: page})
		if err != nil {
			return err
		}
		for _, c := range custs {
			if err := backfillCustomer(tenant.WithCustomer(ctx, c["_id"].(string)), st); err != nil {
				return fmt.Errorf("event subscriptions of customer %s: %w", c["_id"], err)
			}
		}
		if len(custs) < page {
			break
		}
	}
	_, err := st.Global(migrations).Upsert(ctx, subscriptionsBackfill, store.Update{Set: store.Doc{"doneAt": time.Now().UTC().Truncate(time.Millisecond)}})
	return err
}

func backfillCustomer(ctx context.Context, st store.Store) error {
	patterns, err := patternsInUse(ctx, st)
	if err != nil {
		return err
	}
	return events.Subscribe(ctx, st, patterns...)
}

// patternsInUse lists the event patterns the webhooks, triggers and
// pipeline triggers of the customer in ctx ask for, active or not (an
// inactive one may be switched on again without a new Subscribe).
func patternsInUse(ctx context.Context, st store.Store) ([]string, error) {
	var patterns []string
	hooks, err := st.Collection(webhook.Collection).Find(ctx, store.FindOptions{Fields: []string{"events"}})
	if err != nil {
		return nil, err
	}
	for _, h := range hooks {
		patterns = append(patterns, store.Strings(h["events"])...)
	}
	trigs, err := st.Collection(runs.Triggers).Find(ctx, store.FindOptions{Fields: []string{"event"}})
	if err != nil {
		return nil, err
	}
	for _, t := range trigs {
		if ev, _ := t["event"].(string); ev != "" {
			patterns = append(patterns, ev)
		}
	}
	pipes, err := st.Collection(runs.Pipelines).Find(ctx, store.FindOptions{Fields: []string{"trigger", "steps"}})
	if err != nil {
		return nil, err
	}
	for _, p := range pipes {
		t := runs.TriggerOf(p)
		if ev, _ := t["event"].(string); ev != "" {
			patterns = append(patterns, ev)
		}
	}
	return patterns, nil
}
