package newsletter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mailgun/raymond/v2"

	"platform/kernel/notify"
	"platform/kernel/outbound"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Stop is a send that cannot go on: the newsletter fails with Reason.
type Stop struct{ Reason string }

func (e *Stop) Error() string { return e.Reason }

// ErrHeld: recipients of the page are claimed by another attempt that
// may still be sending; the page is retried after the claims lapse.
var ErrHeld = errors.New("newsletter: recipients are held by another attempt")

// statusEvery is how often a page reads whether the send was cancelled.
const statusEvery = time.Second

// send is one page's work: the newsletter and what every mail shares.
type send struct {
	id, customer, subject, owner string
	tracking                     bool
	tpl                          *raymond.Template
	customerDoc                  store.Doc
	out                          contract.NewsletterPage
	held                         int
	checked                      time.Time
	counted                      contract.NewsletterPage // the counts written to the record
	countedAt                    time.Time
}

// Page sends to the page of recipients after in.After. beat reports
// progress (the activity's heartbeat). A cancelled ctx stops the page
// between two mails.
func (s *Sender) Page(ctx context.Context, in contract.NewsletterPageInput, beat func(any)) (contract.NewsletterPage, error) {
	if err := s.ensureLedger(ctx); err != nil {
		return contract.NewsletterPage{}, err
	}
	sd, stopped, err := s.prepare(ctx, in.NewsletterID)
	if err != nil || stopped {
		return contract.NewsletterPage{Stopped: stopped}, err
	}
	page, err := s.recipients(ctx, in.NewsletterID, in.After)
	if err != nil {
		return contract.NewsletterPage{}, err
	}
	err = s.sendAll(ctx, sd, page, beat)
	if perr := s.progress(ctx, sd, true); err == nil {
		err = perr
	}
	if err != nil {
		return sd.out, err
	}
	sd.out.Done = len(page.consumers) < contract.NewsletterPageSize
	if sd.held > 0 {
		return sd.out, fmt.Errorf("%w (%d)", ErrHeld, sd.held)
	}
	return sd.out, nil
}

// prepare loads the newsletter and compiles its template; stopped when
// it is no longer sending (cancelled, deleted).
func (s *Sender) prepare(ctx context.Context, id string) (*send, bool, error) {
	nl, err := s.Service.Store.Collection(Collection).Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, true, nil
	}
	if err != nil || nl["_status"] != StatusSending {
		return nil, err == nil, err
	}
	if s.Mailer == nil {
		return nil, false, &Stop{Reason: "the mail channel is off (PLATFORM_SMTP_ADDR is not set)"}
	}
	body, _ := nl["body"].(string)
	tpl, err := Compile(body)
	if err != nil {
		return nil, false, &Stop{Reason: "body: " + err.Error()}
	}
	customer, err := s.customer(ctx)
	if err != nil {
		return nil, false, err
	}
	subject, _ := nl["subject"].(string)
	return &send{id: id, customer: customer["_id"].(string), subject: subject, owner: store.NewID(),
		tracking: nl["tracking"] == true, tpl: tpl, customerDoc: customer, checked: time.Now(), countedAt: time.Now()}, false, nil
}

// customer is the template's customer: id, slug and name.
func (s *Sender) customer(ctx context.Context) (store.Doc, error) {
	id, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	doc := store.Doc{"_id": id}
	if s.Customers == nil {
		return doc, nil
	}
	c, err := s.Customers.CustomerByID(ctx, id)
	if err != nil {
		return nil, err
	}
	doc["slug"], doc["name"] = c.Slug, c.Name
	return doc, nil
}

// sendAll sends to each recipient of the page at the configured rate.
// out.Next only moves past a recipient once it and every one before it
// are settled, so a page cut short can hand its cursor on.
func (s *Sender) sendAll(ctx context.Context, sd *send, page *recipients, beat func(any)) error {
	pace := newPacer(s.Rate)
	for _, c := range page.consumers {
		if err := ctx.Err(); err != nil {
			return err
		}
		if stop, err := s.cancelled(ctx, sd); err != nil || stop {
			sd.out.Stopped = stop
			return err
		}
		if err := s.each(ctx, sd, c, page, pace); err != nil {
			return err
		}
		if id, _ := c["_id"].(string); sd.held == 0 {
			sd.out.Next = id
		}
		beat(sd.out)
	}
	return nil
}

// each handles one recipient of the page.
func (s *Sender) each(ctx context.Context, sd *send, c store.Doc, page *recipients, pace *pacer) error {
	if page.blocked[lowerEmail(c)] {
		sd.out.Skipped++
		return nil
	}
	id, _ := c["_id"].(string)
	return s.one(ctx, sd, c, page.entries[id], pace)
}

// cancelled reads, at most once per statusEvery, whether the newsletter
// is still sending.
func (s *Sender) cancelled(ctx context.Context, sd *send) (bool, error) {
	if time.Since(sd.checked) < statusEvery {
		return false, nil
	}
	sd.checked = time.Now()
	st, err := s.Check(ctx, sd.id)
	return err == nil && st.Status != StatusSending, err
}

// one sends the newsletter to one consumer unless the ledger says it
// was done, and records the outcome in the ledger, the mail log and the
// newsletter's progress.
func (s *Sender) one(ctx context.Context, sd *send, c store.Doc, prev store.Doc, pace *pacer) error {
	id, _ := c["_id"].(string)
	to, _ := c["email"].(string)
	entry, cl, err := s.claim(ctx, sd.id, id, to, sd.owner, prev)
	switch {
	case err != nil:
		return err
	case cl == done:
		sd.out.Skipped++
		return nil
	case cl == deferred:
		sd.held++
		return nil
	}
	logID, _ := entry["log"].(string)
	if err := s.queueLog(ctx, logID, id, sd.id, to); err != nil {
		return err
	}
	msg, err := s.message(sd, c, logID)
	if err != nil {
		return s.fail(ctx, sd, entry, logID, "the template failed: "+err.Error(), false)
	}
	if err := pace.wait(ctx); err != nil {
		return errors.Join(err, s.settle(ctx, entry, entrySending, "interrupted"))
	}
	return s.deliver(ctx, sd, entry, logID, msg)
}

// deliver submits the mail; the transaction runs to its end even when
// ctx is cancelled, so what the server accepted is always committed.
func (s *Sender) deliver(ctx context.Context, sd *send, entry store.Doc, logID string, msg notify.Message) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.sendTimeout())
	err := s.Mailer.Send(sctx, msg)
	cancel()
	switch {
	case err == nil:
		return s.sent(ctx, sd, entry, logID)
	case notify.IsPermanent(err):
		return s.fail(ctx, sd, entry, logID, outbound.Cause(err), true)
	}
	// 4xx or a lost connection: the next attempt sends again, after the
	// activity's back-off (the SMTP server asked to slow down).
	if serr := s.settle(ctx, entry, entrySending, outbound.Cause(err)); serr != nil {
		return serr
	}
	return fmt.Errorf("newsletter: %s: %w", outbound.Cause(err), err)
}

func (s *Sender) sent(ctx context.Context, sd *send, entry store.Doc, logID string) error {
	if err := s.settle(ctx, entry, entrySent, ""); err != nil {
		return err
	}
	sd.out.Sent++
	ctx = context.WithoutCancel(ctx)
	if err := s.logSent(ctx, logID); err != nil {
		return err
	}
	return s.progress(ctx, sd, false)
}

// fail records a mail the server refused (5xx: bounce) or that could not
// be made: the recipient is failed, its mail log bounced or failed with
// the reason.
func (s *Sender) fail(ctx context.Context, sd *send, entry store.Doc, logID, reason string, bounce bool) error {
	if err := s.settle(ctx, entry, entryFailed, reason); err != nil {
		return err
	}
	sd.out.Failed++
	ctx = context.WithoutCancel(ctx)
	if err := s.logRefused(ctx, logID, reason, bounce); err != nil {
		return err
	}
	return s.progress(ctx, sd, false)
}

// Progress is written to the record at most once per progressEvery or
// progressBatch mails (live progress; Finish sets the exact counts of
// the ledger), which spares a write per mail.
const (
	progressEvery = time.Second
	progressBatch = 25
)

// progress adds the mails settled since the last write to the record's
// counts when due (or now, with force).
func (s *Sender) progress(ctx context.Context, sd *send, force bool) error {
	sent, failed := sd.out.Sent-sd.counted.Sent, sd.out.Failed-sd.counted.Failed
	if sent+failed == 0 || !force && sent+failed < progressBatch && time.Since(sd.countedAt) < progressEvery {
		return nil
	}
	inc := map[string]any{"sent": int64(sent), "failed": int64(failed), "recipients": int64(sent + failed)}
	_, err := s.Service.Apply(context.WithoutCancel(ctx), s.newsletters(), query.ID(sd.id), resource.Change{Inc: inc})
	if err != nil && resource.KindOf(err) != resource.KindNotFound {
		return err
	}
	sd.counted, sd.countedAt = sd.out, time.Now()
	return nil
}
