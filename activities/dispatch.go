package activities

import (
	"context"
	"sort"
	"time"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
)

// EventTargetsInput names a stored event of the customer in ctx.
type EventTargetsInput struct {
	EventID string
	Event   string // the event's name
}

// EventTargetsOutput lists the webhooks the event goes to.
type EventTargetsOutput struct {
	Webhooks []string // ids, sorted
}

// EventTargets lists the customer's active webhooks whose events filter
// selects the event.
func (a *Activities) EventTargets(ctx context.Context, in EventTargetsInput) (EventTargetsOutput, error) {
	hooks, err := a.Store.Collection(webhook.Collection).Find(ctx, store.FindOptions{
		Filter: query.Eq("active", true), Fields: []string{"events"},
	})
	if err != nil {
		return EventTargetsOutput{}, err
	}
	var out EventTargetsOutput
	for _, h := range hooks {
		if events.Matches(store.Strings(h["events"]), in.Event) {
			out.Webhooks = append(out.Webhooks, h["_id"].(string))
		}
	}
	sort.Strings(out.Webhooks)
	return out, nil
}

// MarkDispatchedInput names the event whose deliveries have all started.
type MarkDispatchedInput struct{ EventID string }

// MarkDispatched sets the event's dispatched flag, so the sweeper leaves it
// alone.
func (a *Activities) MarkDispatched(ctx context.Context, in MarkDispatchedInput) error {
	return events.MarkDispatched(ctx, a.Store, in.EventID)
}

// storedEvent is an event as deliveries read it.
type storedEvent struct {
	Name      string
	Timestamp time.Time
	Data      store.Doc
}

// loadEvent reads an event of the customer in ctx.
func (a *Activities) loadEvent(ctx context.Context, id string) (storedEvent, error) {
	d, err := a.Store.Collection(events.Collection).Get(ctx, id)
	if err != nil {
		return storedEvent{}, err
	}
	e := storedEvent{}
	e.Name, _ = d["name"].(string)
	e.Timestamp, _ = d["timestamp"].(time.Time)
	e.Data, _ = d["data"].(store.Doc)
	return e, nil
}
