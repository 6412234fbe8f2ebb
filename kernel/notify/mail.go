package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"sort"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"platform/kernel/outbound"
)

// TLS modes of a Mailer.
const (
	TLSNone     = "none"     // plain SMTP; for tests and a relay on the same host
	TLSStartTLS = "starttls" // plain connection upgraded with STARTTLS, which is required
	TLSImplicit = "tls"      // TLS from the first byte (SMTPS, usually port 465)
)

// DefaultMailTimeout bounds one Send of a Mailer whose Timeout is zero.
const DefaultMailTimeout = 30 * time.Second

// Mailer sends the mail channel over SMTP, one connection per Send, as a
// text/plain message (or HTML, or both as alternatives) with all
// recipients in To.
type Mailer struct {
	Addr     string // host:port of the SMTP server
	From     string // envelope and header sender, e.g. platform@example.com or "Platform <platform@example.com>"
	Username string // empty: no SMTP AUTH
	Password string
	TLS      string        // TLSNone, TLSStartTLS (also when empty) or TLSImplicit
	Timeout  time.Duration // of the connection and each SMTP command; zero: DefaultMailTimeout
	HELO     string        // name sent with EHLO; empty: the machine's host name

	// TLSConfig overrides the TLS settings (e.g. a private CA); its
	// ServerName defaults to the host of Addr.
	TLSConfig *tls.Config

	// DialContext, when set, opens the connection (the outbound guard's,
	// for an SMTP server a tenant configured); nil dials directly.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Send delivers m as one mail. SMTP 5xx replies are permanent errors, 4xx
// replies, connection failures and time-outs are transient.
func (ml *Mailer) Send(ctx context.Context, m Message) error {
	if err := ValidateRecipients(ChannelMail, m.To); err != nil {
		return err
	}
	timeout := ml.timeout(ctx)
	client, err := ml.client(timeout)
	if err != nil {
		return Permanent(&outbound.Failure{Cause: "the mail channel is misconfigured", Err: fmt.Errorf("notify: mail: %w", err)})
	}
	msg := gomail.NewMsg()
	msg.SetUserAgent("platform")
	if err := msg.From(ml.From); err != nil {
		return Permanent(fmt.Errorf("notify: mail: sender %q: %w", ml.From, err))
	}
	if err := msg.To(m.To...); err != nil {
		return Permanent(fmt.Errorf("%w: %v", ErrInvalidRecipient, err))
	}
	msg.Subject(oneLine(m.Subject))
	setBody(msg, m)
	if err := setHeaders(msg, m); err != nil {
		return Permanent(err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return classifySMTP(ml.Addr, timeout, err)
	}
	return nil
}

// setBody sets the plain text, the HTML or both as alternatives.
func setBody(msg *gomail.Msg, m Message) {
	switch {
	case m.HTML == "":
		msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	case m.Body == "":
		msg.SetBodyString(gomail.TypeTextHTML, m.HTML)
	default:
		msg.SetBodyString(gomail.TypeTextPlain, m.Body)
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
}

// reservedHeaders are set by the Mailer from Message's own fields.
var reservedHeaders = map[string]bool{
	"from": true, "to": true, "cc": true, "bcc": true, "subject": true, "message-id": true, "date": true,
	"mime-version": true, "content-type": true, "content-transfer-encoding": true, "sender": true,
}

// setHeaders adds the extra headers, sorted so a message is the same
// bytes every time, and the Message-ID.
func setHeaders(msg *gomail.Msg, m Message) error {
	names := make([]string, 0, len(m.Headers))
	for k := range m.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if reservedHeaders[strings.ToLower(k)] {
			return fmt.Errorf("notify: mail: the header %s is set by the mailer", k)
		}
		if strings.ContainsAny(k+m.Headers[k], "\r\n") {
			return fmt.Errorf("notify: mail: the header %s holds a line break", k)
		}
		msg.SetGenHeader(gomail.Header(k), m.Headers[k])
	}
	if m.MessageID != "" {
		if strings.ContainsAny(m.MessageID, "<>\r\n ") {
			return fmt.Errorf("notify: mail: message id %q: want local@host without brackets", m.MessageID)
		}
		msg.SetMessageIDWithValue(m.MessageID)
	}
	return nil
}

// timeout is the time-out of one Send: the shorter of Timeout and what is
// left of ctx.
func (ml *Mailer) timeout(ctx context.Context) time.Duration {
	timeout := ml.Timeout
	if timeout <= 0 {
		timeout = DefaultMailTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < timeout {
			timeout = max(left, time.Millisecond)
		}
	}
	return timeout
}

// client builds the go-mail client of one Send.
func (ml *Mailer) client(timeout time.Duration) (*gomail.Client, error) {
	host, portStr, err := net.SplitHostPort(ml.Addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: want host:port", ml.Addr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("address %q: bad port", ml.Addr)
	}
	tlsConf := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if ml.TLSConfig != nil {
		tlsConf = ml.TLSConfig.Clone()
		if tlsConf.ServerName == "" {
			tlsConf.ServerName = host
		}
	}
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTimeout(timeout), gomail.WithTLSConfig(tlsConf)}
	switch ml.TLS {
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case TLSStartTLS, "":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	default:
		return nil, fmt.Errorf("TLS mode %q: want none, starttls or tls", ml.TLS)
	}
	if ml.DialContext != nil {
		opts = append(opts, gomail.WithDialContextFunc(ml.DialContext))
	}
	if ml.HELO != "" {
		opts = append(opts, gomail.WithHELO(ml.HELO))
	}
	if ml.Username != "" {
		// Auto-discovery picks the strongest mechanism the server offers and
		// never sends a password in clear text over an unencrypted connection.
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(ml.Username), gomail.WithPassword(ml.Password))
	}
	return gomail.NewClient(host, opts...)
}

// classifySMTP marks SMTP 5xx replies permanent; everything else stays
// transient. The tenant reads the reply's codes, not its text (a server may
// quote the worker's address in it), or how the call failed; the server's
// address stays in the log.
func classifySMTP(addr string, timeout time.Duration, err error) error {
	wrapped := fmt.Errorf("notify: mail via %s: %w", addr, err)
	code, enhanced := smtpReply(err)
	if cause := mailerCause(err); code == 0 && cause != "" {
		return &outbound.Failure{Cause: cause, Err: wrapped}
	}
	if code == 0 {
		return outbound.CallFailed("the mail server", timeout, wrapped)
	}
	failed := &outbound.Failure{Cause: strings.TrimSpace(fmt.Sprintf("the mail server answered %d %s", code, enhanced)), Err: wrapped}
	if code/100 == 5 {
		return Permanent(failed)
	}
	return failed
}

// mailerCause is the cause of a failure the mailer found in what the
// server offers (no STARTTLS, no usable authentication), told with the
// setting that decides it: these texts name no address and no secret.
// Empty for any other failure.
func mailerCause(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "does not support STARTTLS"):
		return "the mail server does not offer STARTTLS, which PLATFORM_SMTP_TLS=starttls (the default) requires; " +
			"for a local relay or test sink that speaks plain SMTP set PLATFORM_SMTP_TLS=none"
	case errors.Is(err, gomail.ErrNoSupportedAuthDiscovered):
		return "the mail server offers no authentication mechanism the mailer may use on this connection " +
			"(PLATFORM_SMTP_USERNAME is set; a password is never sent unencrypted)"
	case strings.Contains(msg, "does not support SMTP AUTH"):
		return "the mail server does not offer SMTP AUTH (or not the mechanism it was asked for), which PLATFORM_SMTP_USERNAME asks for"
	}
	return ""
}

// smtpReply is the reply code (and enhanced status code, RFC 3463, if
// any) of an SMTP failure in err; 0 if there is none.
func smtpReply(err error) (int, string) {
	var se *gomail.SendError
	if errors.As(err, &se) {
		return se.ErrorCode(), se.EnhancedStatusCode() // the reply of the failed command, e.g. 550 of RCPT TO
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code, ""
	}
	return 0, ""
}

// oneLine turns line breaks of a subject into spaces.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' }), " ")
}
