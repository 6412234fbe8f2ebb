package delivery

import (
	"context"
	"sort"
	"time"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/workflows/contract"
)

// EventTargets lists the customer's active webhooks whose events filter
// selects the event.
func (a *Activities) EventTargets(ctx context.Context, in contract.EventTargetsInput) (contract.EventTargetsOutput, error) {
	hooks, err := a.Store.Collection(webhook.Collection).Find(ctx, store.FindOptions{
		Filter: query.Eq("active", true), Fields: []string{"events"},
	})
	if err != nil {
		return contract.EventTargetsOutput{}, err
	}
	var out contract.EventTargetsOutput
	for _, h := range hooks {
		if events.Matches(store.Strings(h["events"]), in.Event) {
			out.Webhooks = append(out.Webhooks, h["_id"].(string))
		}
	}
	sort.Strings(out.Webhooks)
	return out, nil
}

// MarkDispatched sets the event's dispatched flag, so the sweeper leaves it
// alone.
func (a *Activities) MarkDispatched(ctx context.Context, in contract.MarkDispatchedInput) error {
	return events.MarkDispatched(ctx, a.Store, in.EventID)
}

// Event is a stored event as deliveries read it.
type Event struct {
	Name      string
	Timestamp time.Time
	Data      store.Doc
	Cause     []contract.Cause
}

// loadEvent reads an event of the customer in ctx.
func (a *Activities) loadEvent(ctx context.Context, id string) (Event, error) {
	d, err := a.Store.Collection(events.Collection).Get(ctx, id)
	if err != nil {
		return Event{}, err
	}
	return EventOf(d), nil
}

// EventOf reads a stored event record.
func EventOf(d store.Doc) Event {
	e := Event{}
	e.Name, _ = d["name"].(string)
	e.Timestamp, _ = d["timestamp"].(time.Time)
	e.Data, _ = d["data"].(store.Doc)
	e.Cause = causeOf(d["cause"])
	return e
}

// causeOf reads an event's stored causation chain.
func causeOf(v any) []contract.Cause {
	list, _ := v.([]any)
	var out []contract.Cause
	for _, l := range list {
		d, _ := l.(store.Doc)
		run, _ := d["run"].(string)
		pipeline, _ := d["pipeline"].(string)
		out = append(out, contract.Cause{Run: run, Pipeline: pipeline})
	}
	return out
}
