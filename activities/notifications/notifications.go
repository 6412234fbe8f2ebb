// Package notifications holds the activities of routed notifications:
// which routes an event selects (called by the event dispatch, which then
// starts one NotificationDelivery per route), one send of a route's
// template through its channel with the delivery record, and the record of
// a delivery given up.
package notifications

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"platform/kernel/events"
	"platform/kernel/outbound"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/config/channels"
	"platform/modules/config/notification"
	"platform/workflows/contract"
)

// Activities are the notification activities with their dependencies.
type Activities struct {
	Store store.Store
	Log   *slog.Logger
	// Outbound guards the channels' calls; nil refuses them.
	Outbound *outbound.Guard
	// Vault opens the channels' sealed secrets; nil without a master key.
	Vault notification.Opener
	// Starter starts the delivery workflows; nil starts none.
	Starter Starter
	// Attempts and FirstRetry are the retry policy of a delivery's sends
	// (PLATFORM_NOTIFY_ATTEMPTS, PLATFORM_NOTIFY_FIRST_RETRY).
	Attempts   int
	FirstRetry time.Duration
}

// Starter starts a workflow once per id (temporalx.Starter).
type Starter interface {
	Once(ctx context.Context, st temporalx.Start) (bool, error)
}

var _ Starter = (*temporalx.Starter)(nil)

// RouteEvent starts a NotificationDelivery for every enabled route of the
// customer in ctx whose pattern and filter select the event. load reads
// the event's data, only when a route's pattern matches. Workflow ids
// derive from route and event, so a repeated dispatch starts nothing twice.
func (a *Activities) RouteEvent(ctx context.Context, eventID, name string, load func() (map[string]any, error)) error {
	if a == nil || a.Starter == nil {
		return nil
	}
	routes, err := a.Store.Collection(notification.Routes).Find(ctx, store.FindOptions{
		Filter: query.Eq("enabled", true), Fields: []string{"event", "filter"}})
	if err != nil {
		return err
	}
	for _, r := range routes {
		pattern, _ := r["event"].(string)
		if !events.Matches([]string{pattern}, name) {
			continue
		}
		data, err := load()
		if err != nil {
			return err
		}
		if !notification.Selects(r, name, data) {
			continue
		}
		if err := a.start(ctx, r["_id"].(string), eventID, name); err != nil {
			return err
		}
	}
	return nil
}

func (a *Activities) start(ctx context.Context, routeID, eventID, name string) error {
	_, err := a.Starter.Once(ctx, temporalx.Start{
		ID: contract.NotificationWorkflowID(routeID, eventID), Workflow: contract.WorkflowNotificationDelivery,
		Input: contract.NotificationInput{RouteID: routeID, EventID: eventID, Event: name, Attempts: a.Attempts, FirstRetry: a.FirstRetry},
	})
	if err != nil {
		return fmt.Errorf("start the notification of route %s: %w", routeID, err)
	}
	return nil
}

// SendNotification sends the event through the route once and records
// the attempt in the delivery record. A delivery already delivered is not
// sent again. A permanent failure is a non-retryable error; a provider's
// Retry-After sets the wait before the next attempt.
func (a *Activities) SendNotification(ctx context.Context, in contract.SendNotificationInput) error {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return temporal.NewNonRetryableApplicationError("no customer", contract.ErrNotificationPermanent, err)
	}
	id := notification.DeliveryID(in.RouteID, in.EventID)
	coll := a.Store.Collection(notification.Deliveries)
	if old, err := coll.Get(ctx, id, "status"); err == nil && old["status"] == notification.StatusDelivered {
		return nil
	}
	sender := a.sender()
	parts, ev, err := a.load(ctx, sender, in)
	if err != nil {
		return a.failed(ctx, id, in, parts, err)
	}
	set := store.Doc{} // a retry leaves the status at retrying
	if activity.GetInfo(ctx).Attempt == 1 {
		set["status"] = notification.StatusPending
	}
	if err := a.record(ctx, id, in, parts, ev, set); err != nil {
		return err
	}
	if err := sender.Send(ctx, customer, parts, ev); err != nil {
		return a.failed(ctx, id, in, parts, err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	_, err = coll.Upsert(ctx, id, store.Update{Set: store.Doc{"status": notification.StatusDelivered, "deliveredAt": now, "updatedAt": now}})
	return err
}

// load reads the route with its channel and template, and the event.
func (a *Activities) load(ctx context.Context, s *notification.Sender, in contract.SendNotificationInput) (notification.Parts, notification.Event, error) {
	parts, err := s.Load(ctx, in.RouteID)
	if errors.Is(err, store.ErrNotFound) {
		return parts, notification.Event{}, notification.Permanent(fmt.Errorf("the route %s no longer exists", in.RouteID))
	}
	if err != nil {
		return parts, notification.Event{}, err
	}
	d, err := a.Store.Collection(events.Collection).Get(ctx, in.EventID)
	if err != nil {
		return parts, notification.Event{}, err
	}
	ev := notification.Event{ID: in.EventID}
	ev.Name, _ = d["name"].(string)
	ev.Timestamp, _ = d["timestamp"].(time.Time)
	ev.Data, _ = d["data"].(map[string]any)
	return parts, ev, nil
}

// record writes the delivery record of this attempt.
func (a *Activities) record(ctx context.Context, id string, in contract.SendNotificationInput, p notification.Parts, ev notification.Event, set store.Doc) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	set["attempts"], set["lastAttemptAt"], set["updatedAt"] = int64(activity.GetInfo(ctx).Attempt), now, now
	insert := store.Doc{"route": in.RouteID, "event": in.EventID, "createdAt": now}
	if ev.Name != "" {
		insert["eventName"] = ev.Name
	}
	for k, d := range map[string]store.Doc{"channel": p.Channel, "template": p.Template} {
		if id, ok := d["_id"].(string); ok {
			insert[k] = id
		}
	}
	if kind, ok := p.Channel["kind"].(string); ok {
		insert["kind"] = kind
	}
	_, err := a.Store.Collection(notification.Deliveries).Upsert(ctx, id, store.Update{Set: set, SetOnInsert: insert})
	return err
}

// failed records a failed attempt and answers the error the retry policy
// reads: non-retryable when permanent, with the provider's wait if any.
func (a *Activities) failed(ctx context.Context, id string, in contract.SendNotificationInput, p notification.Parts, sendErr error) error {
	cause := channels.Cause(sendErr)
	if err := a.record(ctx, id, in, p, notification.Event{}, store.Doc{"status": notification.StatusRetrying, "lastError": cause}); err != nil {
		return err
	}
	a.Log.WarnContext(ctx, "notification not sent", "route", in.RouteID, "event", in.EventID, "error", cause)
	if notification.IsPermanent(sendErr) {
		return temporal.NewNonRetryableApplicationError(cause, contract.ErrNotificationPermanent, nil)
	}
	return temporal.NewApplicationErrorWithOptions(cause, "NotificationRetryable", temporal.ApplicationErrorOptions{NextRetryDelay: channels.RetryAfter(sendErr)})
}

// SettleNotification marks a delivery whose sends all failed.
func (a *Activities) SettleNotification(ctx context.Context, in contract.SettleNotificationInput) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	_, err := a.Store.Collection(notification.Deliveries).Upsert(ctx, notification.DeliveryID(in.RouteID, in.EventID), store.Update{
		Set:         store.Doc{"status": notification.StatusFailed, "failedAt": now, "updatedAt": now},
		SetOnInsert: store.Doc{"route": in.RouteID, "event": in.EventID, "attempts": int64(0), "createdAt": now}})
	return err
}

func (a *Activities) sender() *notification.Sender {
	env := &channels.Env{Store: a.Store}
	if a.Outbound != nil {
		env.HTTP, env.Dial = a.Outbound.Client(channels.DefaultTimeout), a.Outbound.DialContext
	}
	return &notification.Sender{Store: a.Store, Vault: a.Vault, Env: env}
}
