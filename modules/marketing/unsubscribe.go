package marketing

import (
	"bytes"
	"context"
	"time"

	"platform/api"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/marketing/tracking"
)

// unsubscribeLink checks an unsubscribe link; ok is false for a forged one.
func (t *Tracker) unsubscribeLink(req *api.Request) (customer, consumer string, ok bool) {
	customer, consumer = req.Param("customer"), req.Param("consumer")
	ok = t.Signer.Verify(req.Param("sig"), tracking.KindUnsubscribe, customer, consumer, req.Param("newsletter"))
	return customer, consumer, ok
}

// unsubscribePage answers GET with a confirmation page: link scanners
// fetch every link of a mail, and must not unsubscribe anyone by it.
func (t *Tracker) unsubscribePage(req *api.Request) (*api.Response, error) {
	if _, _, ok := t.unsubscribeLink(req); !ok {
		return nil, linkNotFound()
	}
	return page(confirmPage), nil
}

// unsubscribe is the one-click POST of RFC 8058 (and the confirmation
// page's button, which posts the same body): it records unsubscribedAt
// on the consumer once, announcing consumers.unsubscribed.
func (t *Tracker) unsubscribe(req *api.Request) (*api.Response, error) {
	customer, consumer, ok := t.unsubscribeLink(req)
	if !ok {
		return nil, linkNotFound()
	}
	newsletter := req.Param("newsletter")
	body, err := req.Body()
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(body, []byte("List-Unsubscribe")) || !bytes.Contains(body, []byte("One-Click")) {
		return nil, api.BadRequest(resource.CodeMalformed, "", "the body must be List-Unsubscribe=One-Click (RFC 8058)")
	}
	ctx := tenant.WithCustomer(context.WithoutCancel(req.Ctx), customer)
	if err := t.optOut(ctx, consumer, newsletter); err != nil {
		return nil, err
	}
	return page(donePage), nil
}

// optOut sets unsubscribedAt unless set (or the consumer is gone), and
// the newsletter whose link it was, when the link names one.
func (t *Tracker) optOut(ctx context.Context, consumer, newsletter string) error {
	consumers := t.Service.Registry.Get("crm", "consumers")
	if consumers == nil {
		return resource.Inactive("the crm module is not mounted")
	}
	where := query.AllOf(query.ID(consumer), absent("unsubscribedAt"))
	set := store.Doc{"unsubscribedAt": time.Now().UTC().Truncate(time.Millisecond)}
	if store.ValidID(newsletter) {
		set["unsubscribedNewsletter"] = newsletter
	}
	_, err := t.Service.Apply(ctx, consumers, where, resource.Change{Set: set, Event: "unsubscribed"})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil // already unsubscribed, or no longer there: nothing to record
	}
	return err
}

func absent(field string) query.Expr {
	return query.Field{Path: field, Conds: []query.Cond{query.Exists{Want: false}}}
}

// page answers a fixed HTML page (no data of the request in it).
func page(html string) *api.Response {
	h := noCache()
	h.Set("X-Robots-Tag", "noindex")
	return &api.Response{Raw: []byte(html), ContentType: "text/html; charset=utf-8", Header: h}
}

const pageHead = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
	`<meta name="robots" content="noindex"><title>Unsubscribe</title></head><body style="font-family:sans-serif;max-width:32em;margin:3em auto">`

const confirmPage = pageHead +
	`<h1>Unsubscribe</h1><p>Stop receiving these mails?</p>` +
	`<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
	`<button type="submit">Unsubscribe</button></form></body></html>`

const donePage = pageHead +
	`<h1>You are unsubscribed</h1><p>You will not receive these mails any more.</p></body></html>`
