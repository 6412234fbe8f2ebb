// Package notify sends the messages of the pipeline `notification` step over
// one of three channels: mail (SMTP), sms and push (both HTTP).
//
// # Channels
//
//   - mail: [Mailer] submits a text/plain message with a subject to an SMTP
//     server (PLATFORM_SMTP_ADDR) from PLATFORM_SMTP_FROM, one connection per
//     Send, all recipients in To of one message.
//   - sms: [HTTPSMS] POSTs one JSON request per recipient to PLATFORM_SMS_URL.
//   - push: [HTTPPush] POSTs one JSON request per device token to
//     PLATFORM_PUSH_URL.
//
// sms and push send to the recipients in order and stop at the first failure,
// so a retry after a transient error may reach the earlier recipients again.
//
// # HTTP wire format (sms and push)
//
// The platform speaks one small format so that an operator can put a small
// adapter in front of any SMS or push provider. Each recipient is one request:
//
//	POST <PLATFORM_SMS_URL>
//	Content-Type: application/json
//	Authorization: Bearer <PLATFORM_SMS_TOKEN>      (only when a token is set)
//
//	{"to": "+4915112345678", "body": "Your order has shipped"}
//
//	POST <PLATFORM_PUSH_URL>
//	Content-Type: application/json
//	Authorization: Bearer <PLATFORM_PUSH_TOKEN>     (only when a token is set)
//
//	{"to": "<device token>", "title": "<subject>", "body": "<text>", "data": {...}}
//
// "to" of an SMS is an E.164 number (+, country code, number; no spaces).
// "title" is always present (it may be ""); "data" is left out when the step
// has none. Redirects are not followed.
//
// The answer decides what happens next:
//
//   - any 2xx: delivered; the response body is ignored.
//   - 408, 429 and any 5xx: transient, the caller may retry later (a
//     Retry-After header in seconds is passed on in [StatusError]).
//   - any other status (3xx, 4xx): permanent, the caller must not retry.
//
// Connection errors and time-outs are transient. At most 4 KiB of a response
// body is read (for the error message).
//
// # Errors
//
// Every error is either permanent ([IsPermanent] reports true: a bad
// recipient, an unconfigured or unknown channel, a 4xx answer of an HTTP
// provider other than 408/429, a 5xx reply of an SMTP server) or transient
// (everything else: connection refused, time-outs, 5xx answers of HTTP
// providers, 4xx replies of an SMTP server). Recipients are validated before
// any connection is made.
//
// An error's text (Error) names the provider's or SMTP server's address and
// belongs in the log; [outbound.Cause] gives the text a tenant may read,
// which names them "the sms provider", "the push provider" and "the mail
// server", and an SMTP rejection by its codes only.
package notify

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode"

	"platform/kernel/e164"
	"platform/kernel/settings"
)

// Channels of the notification step.
const (
	ChannelMail = "mail"
	ChannelSMS  = "sms"
	ChannelPush = "push"
)

// Bounds of a message.
const (
	MaxRecipients   = 50   // addresses, numbers or tokens in one Message
	MaxPushTokenLen = 4096 // bytes of one device token
)

// Message is one notification: the step's rendered template is Body.
type Message struct {
	Channel string         // mail, sms or push
	To      []string       // mail addresses, E.164 numbers or device tokens
	Subject string         // mail subject, push title; unused by sms
	Body    string         // plain text
	Data    map[string]any // push only: extra key/values for the app

	// Mail only. HTML is an HTML body: sent alone, or as the alternative
	// of Body when both are set. Headers are extra header fields (the
	// Mailer's own, such as From or Subject, cannot be set this way).
	// MessageID, without angle brackets, replaces the generated one, so
	// that a bounce report can be tied back to what was sent.
	HTML      string
	Headers   map[string]string
	MessageID string
}

// Sender delivers a Message. Errors tell with IsPermanent whether a retry
// can help.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Sentinel errors; all of them are returned wrapped as permanent.
var (
	ErrUnknownChannel   = errors.New("notify: unknown channel")
	ErrNotConfigured    = errors.New("notify: channel not configured")
	ErrInvalidRecipient = errors.New("notify: invalid recipient")
)

// PermanentError marks a failure that a retry cannot fix.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as permanent; nil stays nil.
func Permanent(err error) error {
	if err == nil || IsPermanent(err) {
		return err
	}
	return &PermanentError{Err: err}
}

// IsPermanent says whether err (or an error it wraps) is permanent. Other
// non-nil errors are transient.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// Router sends each Message through the Sender of its channel. A nil Sender
// means the channel is not configured.
type Router struct {
	Mail, SMS, Push Sender
}

// Send validates the recipients of m and hands it to the sender of
// m.Channel.
func (r *Router) Send(ctx context.Context, m Message) error {
	var s Sender
	switch m.Channel {
	case ChannelMail:
		s = r.Mail
	case ChannelSMS:
		s = r.SMS
	case ChannelPush:
		s = r.Push
	default:
		return Permanent(fmt.Errorf("%w %q (want mail, sms or push)", ErrUnknownChannel, m.Channel))
	}
	if s == nil {
		return Permanent(fmt.Errorf("%w: %s (see %s)", ErrNotConfigured, m.Channel, settingOf[m.Channel]))
	}
	if err := ValidateRecipients(m.Channel, m.To); err != nil {
		return err
	}
	return s.Send(ctx, m)
}

// FromConfig builds a Router with the senders whose address or URL is set:
// mail with PLATFORM_SMTP_ADDR, sms with PLATFORM_SMS_URL, push with
// PLATFORM_PUSH_URL. The others stay nil, so Send answers ErrNotConfigured.
func FromConfig(cfg *settings.Config) *Router {
	r := &Router{}
	if cfg.SMTPAddr != "" {
		r.Mail = &Mailer{Addr: cfg.SMTPAddr, From: cfg.SMTPFrom, Username: cfg.SMTPUsername,
			Password: cfg.SMTPPassword, TLS: cfg.SMTPTLS, HELO: cfg.SMTPHelo}
	}
	if cfg.SMSURL != "" {
		r.SMS = &HTTPSMS{URL: cfg.SMSURL, Token: cfg.SMSToken}
	}
	if cfg.PushURL != "" {
		r.Push = &HTTPPush{URL: cfg.PushURL, Token: cfg.PushToken}
	}
	return r
}

var settingOf = map[string]string{
	ChannelMail: "PLATFORM_SMTP_ADDR",
	ChannelSMS:  "PLATFORM_SMS_URL",
	ChannelPush: "PLATFORM_PUSH_URL",
}

// ValidateRecipients checks the recipients of a channel: at least one and at
// most MaxRecipients, each a mail address (net/mail), an E.164 phone number
// or a push token (non-empty, at most MaxPushTokenLen bytes, no spaces or
// control characters). The error is permanent and wraps ErrInvalidRecipient.
func ValidateRecipients(channel string, to []string) error {
	if len(to) == 0 {
		return Permanent(fmt.Errorf("%w: no recipient", ErrInvalidRecipient))
	}
	if len(to) > MaxRecipients {
		return Permanent(fmt.Errorf("%w: %d recipients, at most %d", ErrInvalidRecipient, len(to), MaxRecipients))
	}
	var check func(string) error
	switch channel {
	case ChannelMail:
		check = validMail
	case ChannelSMS:
		check = validPhone
	case ChannelPush:
		check = validPushToken
	default:
		return Permanent(fmt.Errorf("%w %q (want mail, sms or push)", ErrUnknownChannel, channel))
	}
	for i, t := range to {
		if err := check(t); err != nil {
			return Permanent(fmt.Errorf("%w: to[%d]: %v", ErrInvalidRecipient, i, err))
		}
	}
	return nil
}

func validMail(s string) error {
	if s == "" {
		return errors.New("empty mail address")
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return fmt.Errorf("%q is not a mail address", s)
	}
	if i := strings.LastIndexByte(a.Address, '@'); i <= 0 || i == len(a.Address)-1 {
		return fmt.Errorf("%q is not a mail address", s)
	}
	return nil
}

func validPhone(s string) error {
	if !e164.Valid(s) {
		return fmt.Errorf("%q is not an E.164 phone number such as +4915112345678", s)
	}
	return nil
}

func validPushToken(s string) error {
	if s == "" {
		return errors.New("empty push token")
	}
	if len(s) > MaxPushTokenLen {
		return fmt.Errorf("push token of %d bytes, at most %d", len(s), MaxPushTokenLen)
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return errors.New("push token holds spaces, control characters or invalid UTF-8")
		}
	}
	return nil
}
