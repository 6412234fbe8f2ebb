package marketing

import (
	"context"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/marketing/newsletter"
)

// MaxBodyLen bounds a newsletter's template.
const MaxBodyLen = 200_000

// Newsletters declares /newsletters: mail to a filtered set of consumers,
// sent at scheduleAt by one workflow per newsletter (docs/newsletters.md).
// Rights: marketing.newsletters.{view|create|edit|delete}.
func Newsletters(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: newsletter.Collection, Title: "newsletter",
		Fields: newsletterFields(),
		Events: []string{newsletter.EventSent},
		Actions: []resource.Action{
			{Name: "send-test", Title: "send one mail to an address, rendered for a sample consumer (no mail log)",
				Body: []resource.Field{{Name: "to", Type: resource.TString, Format: resource.FEmail, Required: true, MaxLen: 254}},
				Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
					return sendTest(ctx, d, call)
				}},
			{Name: "cancel", Title: "stop a scheduled or running send; what was sent stays sent", Event: newsletter.EventCancelled,
				Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
					return cancel(ctx, d, call)
				}},
			{Name: "duplicate", Title: "a new draft with the same subject, body, filter and tracking", Right: "marketing.newsletters.create",
				Run: duplicate},
		},
		Relations: []resource.Relation{{Rel: "maillogs", Title: "mail sent", Target: "marketing/" + newsletter.MailLogs, Key: "newsletter"}},
		Hooks: resource.Hooks{
			BeforeWrite: func(_ context.Context, w *resource.Write) error { return newsletterWrite(w) },
			AfterWrite: func(ctx context.Context, _ *resource.Service, saved, old store.Doc) error {
				if !scheduleConcerned(saved, old) {
					return nil
				}
				return d.wake(ctx, idOf(saved))
			},
			AfterDelete: func(ctx context.Context, _ *resource.Service, old store.Doc) error {
				return d.wakeIfActive(ctx, old) // a waiting or sending workflow ends
			},
		},
	}
}

func newsletterFields() []resource.Field {
	count := func(name, what string) resource.Field {
		return resource.Field{Name: name, Type: resource.TInteger, ReadOnly: true, Default: int64(0), Filter: true, Sort: true, Description: what}
	}
	return []resource.Field{
		{Name: "subject", Type: resource.TString, Required: true, MaxLen: 998, Filter: true, Sort: true},
		{Name: "body", Type: resource.TString, MaxLen: MaxBodyLen,
			Description: "Handlebars template of the HTML body, compiled on save (a syntax error is a 422 with line and column); in scope: consumer, customer (_id, slug, name), unsubscribeUrl"},
		{Name: "recipientFilter", Type: resource.TObject, FreeForm: true,
			Description: "consumers to send to, in the list query language over the consumers' filterable fields; empty: every consumer. Anonymized and unsubscribed consumers and addresses that bounced or complained are always skipped"},
		{Name: "scheduleAt", Type: resource.TDate, Filter: true, Sort: true,
			Description: "when to send; now or past: at once. Setting it schedules the send, changing it before the send starts reschedules, removing it makes the newsletter a draft again"},
		{Name: "tracking", Type: resource.TBool, Default: false, Filter: true, Description: "rewrite links through the click redirect and add the open pixel"},
		{Name: "_status", Type: resource.TString, Enum: newsletter.Statuses, ReadOnly: true, Default: newsletter.StatusDraft, Filter: true, Sort: true,
			Description: "draft (no scheduleAt), scheduled, sending, sent, cancelled (cancel action) or failed (see failure); docs/newsletters.md"},
		count("recipients", "consumers the send has reached so far (sent + failed); exact once the send ended"),
		count("sent", "mails the SMTP server accepted"),
		count("failed", "mails the SMTP server refused for good (5xx); their mail logs are bounced"),
		{Name: "startedAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true, Description: "when the send began"},
		{Name: "sentAt", Type: resource.TDate, ReadOnly: true, Filter: true, Sort: true, Description: "when the send ended"},
		{Name: "cancelledAt", Type: resource.TDate, ReadOnly: true, Filter: true},
		{Name: "failure", Type: resource.TString, ReadOnly: true, Description: "why the send failed (status failed)"},
	}
}

// newsletterWrite compiles the template, checks the filter and derives
// the status from scheduleAt.
func newsletterWrite(w *resource.Write) error {
	if err := checkNewsletter(w); err != nil {
		return err
	}
	return nextStatus(w)
}

// scheduleConcerned says whether a stored write concerns the newsletter's
// workflow, which is then woken (started if needed) to read the record:
// every write of a scheduled newsletter, so that a write retried after a
// failed wake (a 503) wakes it, and the write that unscheduled one. The
// wake comes after the write is stored, so the workflow reads the new
// record.
func scheduleConcerned(saved, old store.Doc) bool {
	if saved["_status"] == newsletter.StatusScheduled {
		return true
	}
	return old != nil && old["_status"] == newsletter.StatusScheduled
}

// checkNewsletter validates body and recipientFilter.
func checkNewsletter(w *resource.Write) error {
	var errs []resource.ErrorEntry
	body, _ := w.New["body"].(string)
	if _, err := newsletter.Compile(body); err != nil {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "body", "body is not a valid Handlebars template: %v", err))
	}
	if raw, ok := w.New["recipientFilter"].(map[string]any); ok {
		if _, err := query.Parse(raw, w.Service.Registry.Get("crm", "consumers")); err != nil {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, "recipientFilter", "recipientFilter: %v", err))
		}
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

// nextStatus sets _status after a change of scheduleAt.
func nextStatus(w *resource.Write) error {
	old := w.Old["_status"]
	if w.Old != nil && sameTime(w.Old["scheduleAt"], w.New["scheduleAt"]) {
		return nil
	}
	switch old {
	case newsletter.StatusSending:
		return resource.Conflict("scheduleAt", "the newsletter is being sent; cancel it first")
	case newsletter.StatusSent:
		return resource.Conflict("scheduleAt", "the newsletter has been sent; duplicate it to send it again")
	}
	if w.New["scheduleAt"] == nil {
		w.New["_status"] = newsletter.StatusDraft
		return nil
	}
	w.New["_status"] = newsletter.StatusScheduled
	delete(w.New, "failure")
	return nil
}

func sameTime(a, b any) bool {
	ta, okA := a.(interface{ UnixMilli() int64 })
	tb, okB := b.(interface{ UnixMilli() int64 })
	if !okA || !okB {
		return okA == okB
	}
	return ta.UnixMilli() == tb.UnixMilli()
}

func idOf(doc store.Doc) string { id, _ := doc["_id"].(string); return id }

// sendTest sends one mail to the given address.
func sendTest(ctx context.Context, d Deps, call *resource.ActionCall) (*resource.ActionResult, error) {
	if d.Sender == nil {
		return nil, resource.Unavailable("sending mail is unavailable in this process")
	}
	to, _ := call.Body["to"].(string)
	if err := d.Sender.SendTest(ctx, call.Record, to); err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: resource.Present(call.Resource, call.Record, nil), NoEvent: true}, nil
}

// cancel stops a scheduled or running send: the record says cancelled at
// once, the workflow stops before its next mail.
func cancel(ctx context.Context, d Deps, call *resource.ActionCall) (*resource.ActionResult, error) {
	switch call.Record["_status"] {
	case newsletter.StatusCancelled:
		return &resource.ActionResult{Payload: resource.Present(call.Resource, call.Record, nil), NoEvent: true}, nil
	case newsletter.StatusScheduled, newsletter.StatusSending:
	default:
		return nil, resource.Conflict("_status", "only a scheduled or sending newsletter can be cancelled (it is %v)", call.Record["_status"])
	}
	where := query.AllOf(query.ID(call.ID), query.Field{Path: "_status", Conds: []query.Cond{query.In{Values: []any{newsletter.StatusScheduled, newsletter.StatusSending}}}})
	doc, err := call.Service.Apply(ctx, call.Resource, where, resource.Change{Set: store.Doc{"_status": newsletter.StatusCancelled, "cancelledAt": now()}})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil, resource.Conflict("_status", "the newsletter changed meanwhile; read it again")
	}
	if err != nil {
		return nil, err
	}
	if err := d.wake(ctx, call.ID); err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: doc}, nil
}

// duplicate creates a draft with the newsletter's content.
func duplicate(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	body := map[string]any{}
	for _, k := range []string{"subject", "body", "recipientFilter", "tracking"} {
		if v, ok := call.Record[k]; ok {
			body[k] = v
		}
	}
	doc, err := call.Service.Create(ctx, call.Resource, body)
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: doc, NoEvent: true}, nil
}
