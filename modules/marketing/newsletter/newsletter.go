// Package newsletter is the marketing module's newsletter service: the
// Handlebars templates, the recipients of a send, the per-recipient send
// ledger and the mails themselves. The newsletters resource (package
// marketing) validates with it, the send workflow's activities send with
// it (docs/newsletters.md).
package newsletter

import (
	"context"
	"log/slog"
	"time"

	"platform/kernel/notify"
	"platform/kernel/resource"
	"platform/modules/identity"
	"platform/modules/marketing/tracking"
)

// Collections of the newsletters and their mail.
const (
	Collection = "newsletters"
	MailLogs   = "maillogs"
	// Ledger holds one entry per newsletter and consumer: whether the mail
	// was accepted by the SMTP server (docs/newsletters.md, the guarantee).
	Ledger = "newsletterledger"
)

// Statuses of a newsletter (_status).
const (
	StatusDraft     = "draft"
	StatusScheduled = "scheduled"
	StatusSending   = "sending"
	StatusSent      = "sent"
	StatusCancelled = "cancelled"
	StatusFailed    = "failed"
)

// Statuses lists every status, in the order of a send.
var Statuses = []string{StatusDraft, StatusScheduled, StatusSending, StatusSent, StatusCancelled, StatusFailed}

// Events of a newsletter beyond its writes.
const (
	EventSent      = "sent"
	EventCancelled = "cancelled"
)

// Mailer sends one mail (notify.Mailer).
type Mailer interface {
	Send(ctx context.Context, m notify.Message) error
}

// Customers finds the customer a newsletter is sent for (identity.Service).
type Customers interface {
	CustomerByID(ctx context.Context, id string) (*identity.Customer, error)
}

// Sender sends newsletters. A nil Mailer makes every send fail with a
// reason naming PLATFORM_SMTP_ADDR.
type Sender struct {
	Service   *resource.Service
	Mailer    Mailer
	Signer    tracking.Signer
	Customers Customers
	// Rate is how many mails per second one send submits at most.
	Rate float64
	// Lease is how long a recipient's claim keeps other attempts off it
	// (zero: ClaimLease); one SMTP transaction takes at most half of it.
	Lease time.Duration
	// Host is the right-hand side of the Message-IDs.
	Host string
	Log  *slog.Logger

	ledger ledgerIndexes // ensured on first use
}

func (s *Sender) newsletters() *resource.Resource {
	return s.Service.Registry.Get("marketing", Collection)
}

func (s *Sender) consumers() *resource.Resource { return s.Service.Registry.Get("crm", "consumers") }
