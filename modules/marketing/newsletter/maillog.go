package newsletter

import (
	"context"

	"platform/kernel/store"
	"platform/modules/marketing/maillog"
)

func (s *Sender) logs() maillog.Logs { return maillog.Logs{Service: s.Service} }

// queueLog creates the mail log (status queued) under the id the ledger
// chose, once: a resend finds it.
func (s *Sender) queueLog(ctx context.Context, logID, consumer, newsletter, to string) error {
	_, err := s.logs().Create(ctx, maillog.Write{ID: logID, To: to, Consumer: consumer, Newsletter: newsletter,
		Source: "newsletter", Status: maillog.Queued})
	if store.IsDuplicate(err) {
		return nil
	}
	return err
}

// logSent moves the mail log to sent, with sentAt (from which the tracking
// service's scanner rule counts).
func (s *Sender) logSent(ctx context.Context, logID string) error {
	_, err := s.logs().Settle(ctx, logID, "")
	return err
}

// logRefused records why the mail was not sent: a permanent refusal of
// the SMTP server is a bounce (maillogs.bounced, and later sends skip the
// address); a mail that could not be made is failed.
func (s *Sender) logRefused(ctx context.Context, logID, reason string, bounce bool) error {
	if !bounce {
		_, err := s.logs().Settle(ctx, logID, reason)
		return err
	}
	_, _, err := s.logs().Report(ctx, logID, maillog.Bounced, reason)
	return err
}
