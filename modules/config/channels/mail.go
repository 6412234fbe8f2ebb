package channels

import (
	"context"
	"errors"
	"net"
	"strconv"

	"platform/kernel/notify"
)

var errNoOutbound = errors.New("outbound calls are not configured in this process")

// mailKind sends over SMTP with kernel/notify's Mailer (STARTTLS by default,
// AUTH when a username is set), one message to all recipients, through the
// outbound guard's dialer.
type mailKind struct{}

var _ Kind = mailKind{}

func init() { register(mailKind{}) }

func (mailKind) Name() string { return KindMail }

func (mailKind) Settings() []Setting {
	return []Setting{
		{Name: "host", Required: true, Type: TypeString, Check: maxRunes(253), Description: "the SMTP server's host name"},
		{Name: "port", Type: TypeInteger, Default: int64(587), Check: between(1, 65535), Description: "the SMTP server's port"},
		{Name: "tls", Type: TypeString, Default: notify.TLSStartTLS, Check: oneOf(notify.TLSStartTLS, notify.TLSImplicit, notify.TLSNone),
			Description: "starttls (required upgrade), tls (implicit, port 465) or none"},
		{Name: "from", Required: true, Type: TypeString, Check: func(v any) string { return mailAddress(v.(string)) }, Description: "the sender address"},
		{Name: "to", Required: true, Type: TypeStrings, Check: each(mailAddress), Description: "the recipients' mail addresses"},
		{Name: "username", Type: TypeString, Check: maxRunes(256), Description: "the SMTP AUTH user; none: no AUTH"},
		{Name: "helo", Type: TypeString, Check: maxRunes(253), Description: "the name sent with EHLO; the machine's host name when absent"},
		{Name: "password", Secret: true, Type: TypeString, Check: maxRunes(1024), Description: "the SMTP AUTH password (sealed, never shown)"},
	}
}

func (mailKind) Send(ctx context.Context, env *Env, t Target, m Message) error {
	if env.Dial == nil {
		return notify.Permanent(errNoOutbound)
	}
	port, _ := number(t.Settings["port"])
	ml := &notify.Mailer{
		Addr: net.JoinHostPort(str(t.Settings, "host"), strconv.Itoa(int(port))),
		From: str(t.Settings, "from"), Username: str(t.Settings, "username"), Password: str(t.Secrets, "password"),
		TLS: str(t.Settings, "tls"), HELO: str(t.Settings, "helo"), Timeout: env.timeout(), DialContext: env.Dial,
	}
	return ml.Send(ctx, notify.Message{Channel: notify.ChannelMail, To: strs(t.Settings, "to"), Subject: m.Subject, Body: m.Body,
		MessageID: messageID(m.DeliveryID, str(t.Settings, "from"))})
}
