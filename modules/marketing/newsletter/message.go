package newsletter

import (
	"context"

	"platform/kernel/notify"
	"platform/kernel/outbound"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/marketing/tracking"
)

// message renders the mail of one consumer: the body with its opt-out
// link (and, with tracking on, rewritten links and the open pixel), the
// RFC 8058 headers and the Message-ID of its mail log.
func (s *Sender) message(sd *send, c store.Doc, logID string) (notify.Message, error) {
	consumer, _ := c["_id"].(string)
	unsub := s.Signer.Unsubscribe(sd.customer, consumer, sd.id)
	html, err := Render(sd.tpl, Scope(c, sd.customerDoc, unsub))
	if err != nil {
		return notify.Message{}, err
	}
	if sd.tracking {
		html = Track(html, s.Signer, sd.customer, logID, unsub)
	}
	to, _ := c["email"].(string)
	return notify.Message{
		Channel: notify.ChannelMail, To: []string{to}, Subject: sd.subject,
		HTML: html, Body: PlainText(html), Headers: ListHeaders(unsub),
		MessageID: tracking.MessageID(sd.customer, logID, s.Host),
	}, nil
}

// ListHeaders are the one-click opt-out headers of RFC 8058 (and 2369).
func ListHeaders(unsubscribeURL string) map[string]string {
	return map[string]string{"List-Unsubscribe": "<" + unsubscribeURL + ">", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
}

// SampleConsumer is the recipient of a test mail.
func SampleConsumer(to string) store.Doc {
	return store.Doc{"_id": resource.PlatformActor, "email": to, "first_name": "Ada", "last_name": "Lovelace",
		"displayName": "Ada Lovelace", "country": "GB", "tags": []any{"sample"}}
}

// SendTest sends the newsletter nl once to to, rendered for a sample
// consumer, without tracking or a mail log.
func (s *Sender) SendTest(ctx context.Context, nl store.Doc, to string) error {
	if s.Mailer == nil {
		return resource.Unavailable("the mail channel is off (PLATFORM_SMTP_ADDR is not set)")
	}
	body, _ := nl["body"].(string)
	tpl, err := Compile(body)
	if err != nil {
		return resource.InvalidField("body", "%v", err)
	}
	customer, err := s.customer(ctx)
	if err != nil {
		return err
	}
	id, _ := nl["_id"].(string)
	subject, _ := nl["subject"].(string)
	sd := &send{id: id, customer: customer["_id"].(string), subject: subject, tpl: tpl, customerDoc: customer}
	msg, err := s.message(sd, SampleConsumer(to), store.NewID())
	if err != nil {
		return resource.InvalidField("body", "the template failed for the sample consumer: %v", err)
	}
	msg.MessageID = "" // not a mail log's: bounces of a test mail match nothing
	ctx, cancel := context.WithTimeout(ctx, s.sendTimeout())
	defer cancel()
	if err := s.Mailer.Send(ctx, msg); err != nil {
		return resource.Unavailable("the mail server did not take the test mail: %s", outbound.Cause(err)).WithCause(err)
	}
	return nil
}
