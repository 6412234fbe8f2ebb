package config

import (
	"context"
	"errors"
	"time"

	"platform/api"
	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/config/channels"
	"platform/modules/config/notification"
)

// RightTestRoute sends a route's sample notification.
const RightTestRoute = "config.notificationroutes.test"

// NotificationRoutes declares /notificationroutes: an event pattern, an
// optional filter on the event's data, a template and a channel of the
// template's kind. Every matching event is sent by a NotificationDelivery
// workflow with retries and recorded in /notificationdeliveries.
func NotificationRoutes(d Deps) *resource.Resource {
	h := &routeHandlers{d: d}
	return &resource.Resource{
		Plural: notification.Routes, Title: "notification route",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Unique: true, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "event", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true,
				Description: "an event name (consumers.created), <plural>.* or *, as webhook subscriptions take them"},
			{Name: "filter", Type: resource.TObject, FreeForm: true,
				Description: "a condition in the query language on the event's data ({\"status\": \"vip\"}); the route sends only when it holds"},
			{Name: "template", Type: resource.TObjectID, Required: true, Filter: true, Description: "the notificationtemplates record rendered"},
			{Name: "channel", Type: resource.TObjectID, Required: true, Filter: true, Description: "the notificationchannels record sent through; of the template's kind"},
			{Name: "enabled", Type: resource.TBool, Default: true, Filter: true, Sort: true, Description: "a disabled route sends nothing"},
		},
		Relations: []resource.Relation{
			{Rel: "template", Title: "the template", Target: "config/" + notification.Templates, Field: "template"},
			{Rel: "channel", Title: "the channel", Target: "config/" + notification.Channels, Field: "channel"},
			{Rel: "deliveries", Title: "the route's deliveries", Target: "config/" + notification.Deliveries, Key: "route"},
		},
		Actions: []resource.Action{{
			Name: "test", Title: "render the template on a sample event and send it through the channel now; answers the outcome", Right: RightTestRoute,
			Body: []resource.Field{
				{Name: "event", Type: resource.TString, MaxLen: 200, Description: "the sample's event name; the route's event when it names one, else consumers.created"},
				{Name: "data", Type: resource.TObject, FreeForm: true, Description: "the sample's data; a sample consumer when absent"},
			},
			Run: h.test,
		}},
		Hooks: resource.Hooks{BeforeWrite: h.beforeWrite},
	}
}

type routeHandlers struct{ d Deps }

// beforeWrite checks the pattern, the filter and that template and
// channel exist and are of one kind.
func (h *routeHandlers) beforeWrite(ctx context.Context, w *resource.Write) error {
	var errs []api.ErrorEntry
	ev, _ := w.New["event"].(string)
	if why := events.CheckPattern(ev, w.Service.Registry.EventNames()); why != "" {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "event", "%q %s", ev, why))
	}
	if f, ok := w.New["filter"].(map[string]any); ok {
		if _, err := query.Parse(f, nil); err != nil {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, "filter", "filter: %v", err))
		}
	}
	sender := &notification.Sender{Store: w.Service.Store}
	parts, err := sender.LoadFor(ctx, w.New)
	switch {
	case errors.Is(err, notification.ErrGone):
		return nil // the link check names the missing record
	case err != nil:
		return err
	case parts.Template["kind"] != parts.Channel["kind"]:
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "template",
			"the template is written for %v channels, the channel is a %v channel", parts.Template["kind"], parts.Channel["kind"]))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

// test sends a sample through the route's channel and answers how it
// went; nothing is recorded.
func (h *routeHandlers) test(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	sender := h.d.sender(call.Service.Store)
	parts, err := sender.LoadFor(ctx, call.Record)
	if errors.Is(err, notification.ErrGone) {
		return nil, resource.Conflict("", "%v", err)
	} else if err != nil {
		return nil, err
	}
	name, _ := call.Body["event"].(string)
	if pattern, _ := call.Record["event"].(string); name == "" && pattern != "*" && !hasWildcard(pattern) {
		name = pattern
	}
	data, _ := call.Body["data"].(map[string]any)
	start := time.Now()
	sendErr := sender.Send(ctx, cust, parts, SampleEvent(name, data))
	out := store.Doc{"status": notification.StatusDelivered, "durationMs": time.Since(start).Milliseconds()}
	if sendErr != nil {
		out["status"], out["error"] = notification.StatusFailed, channels.Cause(sendErr)
		out["retryable"] = !notification.IsPermanent(sendErr)
	}
	return &resource.ActionResult{Payload: out, NoEvent: true}, nil
}

func hasWildcard(p string) bool { return len(p) > 0 && p[len(p)-1] == '*' }

// NotificationDeliveries declares the read-only /notificationdeliveries:
// one record per route and event, written by the NotificationDelivery
// workflow.
func NotificationDeliveries() *resource.Resource {
	return &resource.Resource{
		Plural: notification.Deliveries, Title: "notification delivery", ReadOnly: true,
		Fields: []resource.Field{
			{Name: "route", Type: resource.TObjectID, Filter: true},
			{Name: "channel", Type: resource.TObjectID, Filter: true},
			{Name: "template", Type: resource.TObjectID, Filter: true},
			{Name: "kind", Type: resource.TString, Filter: true, Description: "the channel's kind"},
			{Name: "event", Type: resource.TObjectID, Filter: true, Description: "event id"},
			{Name: "eventName", Type: resource.TString, Filter: true, Sort: true},
			{Name: "status", Type: resource.TString, Filter: true, Sort: true,
				Enum: []string{notification.StatusPending, notification.StatusRetrying, notification.StatusDelivered, notification.StatusFailed}},
			{Name: "attempts", Type: resource.TInteger, Filter: true, Sort: true, Description: "attempts started so far"},
			{Name: "lastError", Type: resource.TString, Description: "why the last attempt failed"},
			{Name: "lastAttemptAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "deliveredAt", Type: resource.TDate, Filter: true, Sort: true},
			{Name: "failedAt", Type: resource.TDate, Filter: true, Sort: true},
		},
	}
}

// refuseIfRouted keeps a channel or template that a route uses.
func refuseIfRouted(field string) func(ctx context.Context, s *resource.Service, old store.Doc) error {
	return func(ctx context.Context, s *resource.Service, old store.Doc) error {
		found, err := s.Store.Collection(notification.Routes).Find(ctx, store.FindOptions{Filter: query.Eq(field, old["_id"]), Limit: 1, Fields: []string{"name"}})
		if err != nil {
			return err
		}
		if len(found) > 0 {
			return resource.Conflict("", "the notification route %v uses this %s: change or delete the route first", found[0]["name"], field)
		}
		return nil
	}
}

// sender sends notifications with the module's guard and vault.
func (d Deps) sender(st store.Store) *notification.Sender {
	env := &channels.Env{Store: st}
	if d.Outbound != nil {
		env.HTTP, env.Dial = d.Outbound.Client(channels.DefaultTimeout), d.Outbound.DialContext
	}
	s := &notification.Sender{Store: st, Env: env}
	if d.Vault != nil {
		s.Vault = d.Vault
	}
	return s
}
