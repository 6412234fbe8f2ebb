// Package notification is the service side of routed notifications: the
// collections of channels, templates, routes and deliveries, the
// Handlebars rendering of templates, which routes an event selects, and
// one send of a route's template through its channel. The config module's
// resources and the worker's activities both use it.
package notification

import (
	"context"
	"errors"
	"fmt"
	"time"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/config/channels"
)

// Collections.
const (
	Channels   = "notificationchannels"
	Templates  = "notificationtemplates"
	Routes     = "notificationroutes"
	Deliveries = "notificationdeliveries"
)

// SecretsField holds a channel's sealed secrets.
const SecretsField = "secrets"

// Delivery states (status of a notificationdeliveries record).
const (
	StatusPending   = "pending"   // started, no attempt finished yet
	StatusRetrying  = "retrying"  // an attempt failed, another one is due
	StatusDelivered = "delivered" // the channel accepted it
	StatusFailed    = "failed"    // the last attempt failed: given up
)

// Opener opens a record's sealed secrets (credentials.Vault).
type Opener interface {
	Open(customer, recordID string, sealed store.Doc) (map[string]any, error)
}

// Event is what a notification is about.
type Event struct {
	ID, Name  string
	Timestamp time.Time
	Data      map[string]any
}

// Doc is the event as templates and the filter see it.
func (e Event) Doc() map[string]any {
	return map[string]any{"id": e.ID, "name": e.Name, "timestamp": e.Timestamp.UTC().Format(time.RFC3339Nano), "data": e.Data}
}

// Selects says whether a route's event pattern and filter select the
// event. The filter, in the query language, is matched against the
// event's data (as a pipeline trigger's is); a broken saved filter
// selects nothing.
func Selects(route store.Doc, name string, data map[string]any) bool {
	pattern, _ := route["event"].(string)
	if pattern == "" || !events.Matches([]string{pattern}, name) {
		return false
	}
	f, _ := route["filter"].(map[string]any)
	if len(f) == 0 {
		return true
	}
	expr, err := query.Parse(f, nil)
	return err == nil && query.Match(expr, data)
}

// DeliveryID is the id of the delivery of an event through a route: the
// notificationdeliveries record's _id and the workflow's key.
func DeliveryID(routeID, eventID string) string { return hashID("notify", routeID, eventID) }

// Sender sends routes' notifications.
type Sender struct {
	Store store.Store
	Vault Opener // nil: channels with secrets cannot send
	Env   *channels.Env
}

// Parts are what one send of a route needs, read from the store.
type Parts struct {
	Route, Channel, Template store.Doc
}

// Load reads the route with its channel and template.
func (s *Sender) Load(ctx context.Context, routeID string) (Parts, error) {
	var p Parts
	var err error
	if p.Route, err = s.Store.Collection(Routes).Get(ctx, routeID); err != nil {
		return p, err
	}
	return s.LoadFor(ctx, p.Route)
}

// LoadFor reads a route's channel and template.
func (s *Sender) LoadFor(ctx context.Context, route store.Doc) (Parts, error) {
	p := Parts{Route: route}
	var err error
	chID, _ := route["channel"].(string)
	tplID, _ := route["template"].(string)
	if p.Channel, err = s.Store.Collection(Channels).Get(ctx, chID); err != nil {
		return p, missing("channel", chID, err)
	}
	if p.Template, err = s.Store.Collection(Templates).Get(ctx, tplID); err != nil {
		return p, missing("template", tplID, err)
	}
	return p, nil
}

// ErrGone marks a route whose channel or template was deleted.
var ErrGone = errors.New("notification: part of the route is gone")

func missing(what, id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: the route's %s %s no longer exists", ErrGone, what, id)
	}
	return err
}

// Send renders the template for ev and sends it through the channel.
// Errors are as channels.Kind.Send's; a template, channel or secret that
// cannot be used is permanent.
func (s *Sender) Send(ctx context.Context, customer string, p Parts, ev Event) error {
	kindName, _ := p.Channel["kind"].(string)
	kind, ok := channels.Lookup(kindName)
	if !ok {
		return Permanent(fmt.Errorf("the channel's kind %q is unknown", kindName))
	}
	msg, err := Message(p, ev)
	if err != nil {
		return Permanent(err)
	}
	target, err := s.target(customer, p.Channel, kindName)
	if err != nil {
		return Permanent(err)
	}
	return kind.Send(ctx, s.Env, target, msg)
}

// Message renders the route's template for ev.
func Message(p Parts, ev Event) (channels.Message, error) {
	scope := Scope(p, ev)
	subject, err := RenderField(p.Template, "subject", scope)
	if err != nil {
		return channels.Message{}, err
	}
	body, err := RenderField(p.Template, "body", scope)
	if err != nil {
		return channels.Message{}, err
	}
	routeID, _ := p.Route["_id"].(string)
	channelID, _ := p.Channel["_id"].(string)
	return channels.Message{Subject: subject, Body: body, EventID: ev.ID, EventName: ev.Name, Data: ev.Data,
		DeliveryID: DeliveryID(routeID, ev.ID), Route: routeID, Channel: channelID, Time: ev.Timestamp}, nil
}

// Scope is what a template sees: the event (id, name, timestamp, data),
// its data also as data, and the route's and channel's names.
func Scope(p Parts, ev Event) map[string]any {
	return map[string]any{
		"event": ev.Doc(), "data": ev.Data,
		"route":   map[string]any{"name": p.Route["name"]},
		"channel": map[string]any{"name": p.Channel["name"], "kind": p.Channel["kind"]},
	}
}

func (s *Sender) target(customer string, ch store.Doc, kind string) (channels.Target, error) {
	settings, _ := ch["settings"].(map[string]any)
	t := channels.Target{Kind: kind, Settings: settings, Secrets: map[string]any{}}
	sealed, _ := ch[SecretsField].(map[string]any)
	if len(sealed) == 0 {
		return t, nil
	}
	if s.Vault == nil {
		return t, errors.New("the channel's secrets cannot be opened: this process has no master key")
	}
	id, _ := ch["_id"].(string)
	plain, err := s.Vault.Open(customer, id, sealed)
	if err != nil {
		return t, errors.New("the channel's secrets do not open: they were altered or sealed under another master key")
	}
	t.Secrets = plain
	return t, nil
}

// permanentError marks a failure no retry fixes.
type permanentError struct{ err error }

func (p *permanentError) Error() string { return p.err.Error() }
func (p *permanentError) Unwrap() error { return p.err }

// Permanent marks err as permanent.
func Permanent(err error) error { return &permanentError{err} }

// IsPermanent says whether a retry of the send cannot help.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p) || errors.Is(err, ErrGone) || channels.IsPermanent(err)
}
