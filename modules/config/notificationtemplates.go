package config

import (
	"context"
	"errors"
	"time"

	"platform/api"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/config/channels"
	"platform/modules/config/notification"
	"platform/modules/marketing/newsletter"
)

// MaxTemplateLen bounds a template's body.
const MaxTemplateLen = 32 << 10

// NotificationTemplates declares /notificationtemplates: a subject and a
// body in Handlebars for one channel kind, compiled on every write (a
// syntax error is a 422 naming line and column), with a preview action.
func NotificationTemplates(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: notification.Templates, Title: "notification template",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Unique: true, Filter: true, Sort: true},
			{Name: "kind", Type: resource.TString, Required: true, Enum: channels.Names(), Filter: true, Sort: true,
				Description: "the channel kind the template is written for; a route pairs it with a channel of that kind"},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "subject", Type: resource.TString, MaxLen: 1000,
				Description: "Handlebars: the mail subject, push title, chat heading; it sees event (id, name, timestamp, data), data, route.name, channel.name and channel.kind"},
			{Name: "body", Type: resource.TString, Required: true, MaxLen: MaxTemplateLen, Description: "Handlebars: the text, with the subject's scope; values are not HTML-escaped"},
		},
		Actions: []resource.Action{{
			Name: "preview", Title: "render the template on a sample event (or the one sent) without sending it", Right: "config.notificationtemplates.view",
			Body: []resource.Field{
				{Name: "event", Type: resource.TString, MaxLen: 200, Description: "the event name of the sample; consumers.created when absent"},
				{Name: "data", Type: resource.TObject, FreeForm: true, Description: "the sample event's data; a sample consumer when absent"},
			},
			Run: previewTemplate,
		}},
		Hooks: resource.Hooks{BeforeWrite: checkTemplate, BeforeDelete: refuseIfRouted("template")},
	}
}

// checkTemplate compiles subject and body.
func checkTemplate(_ context.Context, w *resource.Write) error {
	var errs []api.ErrorEntry
	for _, f := range []string{"subject", "body"} {
		src, _ := w.New[f].(string)
		if _, err := notification.Compile(src); err != nil {
			errs = append(errs, syntaxEntry(f, err))
		}
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

func syntaxEntry(field string, err error) api.ErrorEntry {
	var se *newsletter.SyntaxError
	if !errors.As(err, &se) {
		return resource.FieldError(resource.CodeSyntax, field, "%s is not a valid Handlebars template: %v", field, err)
	}
	e := resource.FieldError(resource.CodeSyntax, field, "%s is not a valid Handlebars template: %s (line %d, column %d)", field, se.Reason, se.Line, se.Column)
	e.Line, e.Column = se.Line, se.Column
	return e
}

// SampleEvent is the event previews and route tests render when the
// caller sends none.
func SampleEvent(name string, data map[string]any) notification.Event {
	if name == "" {
		name = "consumers.created"
	}
	if data == nil {
		data = map[string]any{"_id": "000000000000000000000001", "firstName": "Ada", "lastName": "Lovelace",
			"email": "ada@example.com", "createdAt": "2026-01-01T09:00:00Z"}
	}
	return notification.Event{ID: "000000000000000000000000", Name: name, Timestamp: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC), Data: data}
}

func previewTemplate(_ context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	name, _ := call.Body["event"].(string)
	data, _ := call.Body["data"].(map[string]any)
	parts := notification.Parts{Template: call.Record,
		Route:   store.Doc{"name": "preview"},
		Channel: store.Doc{"name": "preview", "kind": call.Record["kind"]}}
	msg, err := notification.Message(parts, SampleEvent(name, data))
	if err != nil {
		return nil, resource.InvalidField("body", "the template does not render on this event: %v", err)
	}
	return &resource.ActionResult{Payload: store.Doc{"subject": msg.Subject, "body": msg.Body}, NoEvent: true}, nil
}
