package notify

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http/httptest"
	"net/mail"
	"strconv"
	"strings"
	"testing"
	"time"

	smtpmock "github.com/mocktools/go-smtp-mock/v2"

	"platform/kernel/outbound"
)

// startSMTP runs a real SMTP server (go-smtp-mock) on a loopback port.
func startSMTP(t *testing.T, cfg smtpmock.ConfigurationAttr) (*smtpmock.Server, string) {
	t.Helper()
	cfg.HostAddress = "127.0.0.1"
	cfg.MultipleRcptto = true
	cfg.MultipleMessageReceiving = true // keep the message when go-mail sends RSET after DATA
	srv := smtpmock.New(cfg)
	if err := srv.Start(); err != nil {
		t.Fatalf("start SMTP mock: %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return srv, net.JoinHostPort("127.0.0.1", strconv.Itoa(srv.PortNumber()))
}

func testMailer(addr string) *Mailer {
	return &Mailer{Addr: addr, From: "Platform <platform@example.com>", TLS: TLSNone, HELO: "localhost", Timeout: 5 * time.Second}
}

func TestMailerDelivers(t *testing.T) {
	srv, addr := startSMTP(t, smtpmock.ConfigurationAttr{})
	err := testMailer(addr).Send(context.Background(), Message{
		Channel: ChannelMail,
		To:      []string{"alice@example.com", "Bob <bob@example.org>"},
		Subject: "Your order #42 has shipped – danke",
		Body:    "Hello Alice,\r\nyour order is on its way.\r\n",
	})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	msgs, err := srv.WaitForMessages(1, 5*time.Second)
	if err != nil {
		t.Fatalf("no message arrived: %v", err)
	}
	got := msgs[0]
	if want := "MAIL FROM:<platform@example.com>"; !strings.Contains(got.MailfromRequest(), want) {
		t.Errorf("MAIL FROM = %q, want %q", got.MailfromRequest(), want)
	}
	var rcpts []string
	for _, rr := range got.RcpttoRequestResponse() {
		rcpts = append(rcpts, rr[0])
	}
	if want := []string{"RCPT TO:<alice@example.com>", "RCPT TO:<bob@example.org>"}; strings.Join(rcpts, "|") != strings.Join(want, "|") {
		t.Errorf("RCPT TO = %q, want %q", rcpts, want)
	}

	parsed, err := mail.ReadMessage(strings.NewReader(got.MsgRequest()))
	if err != nil {
		t.Fatalf("parse message: %v\n%s", err, got.MsgRequest())
	}
	from, _ := parsed.Header.AddressList("From")
	if len(from) != 1 || from[0].Address != "platform@example.com" {
		t.Errorf("From = %v", from)
	}
	to, _ := parsed.Header.AddressList("To")
	if len(to) != 2 || to[0].Address != "alice@example.com" || to[1].Address != "bob@example.org" {
		t.Errorf("To = %v", to)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
	if err != nil || subject != "Your order #42 has shipped – danke" {
		t.Errorf("Subject = %q (%v)", subject, err)
	}
	if ct := parsed.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type = %q, want text/plain", ct)
	}
	var body io.Reader = parsed.Body
	if strings.EqualFold(parsed.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	raw, _ := io.ReadAll(body)
	if !strings.Contains(string(raw), "Hello Alice,\r\nyour order is on its way.") {
		t.Errorf("body = %q", raw)
	}
}

func TestMailerSubjectIsOneLine(t *testing.T) {
	srv, addr := startSMTP(t, smtpmock.ConfigurationAttr{})
	if err := testMailer(addr).Send(context.Background(), Message{
		Channel: ChannelMail, To: []string{"alice@example.com"},
		Subject: "Hi\r\nBcc: mallory@example.com", Body: "x",
	}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	msgs, err := srv.WaitForMessages(1, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := mail.ReadMessage(strings.NewReader(msgs[0].MsgRequest()))
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Header.Get("Bcc") != "" {
		t.Fatalf("subject injected a header: %q", msgs[0].MsgRequest())
	}
	if s, _ := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject")); s != "Hi Bcc: mallory@example.com" {
		t.Errorf("Subject = %q", s)
	}
}

func TestMailerRejectedRecipientIsPermanent(t *testing.T) {
	srv, addr := startSMTP(t, smtpmock.ConfigurationAttr{NotRegisteredEmails: []string{"nobody@example.com"}}) // 550 User not found
	err := testMailer(addr).Send(context.Background(), Message{Channel: ChannelMail, To: []string{"nobody@example.com"}, Subject: "s", Body: "b"})
	if err == nil {
		t.Fatal("Send succeeded, want 550")
	}
	if !IsPermanent(err) {
		t.Errorf("IsPermanent = false for %v", err)
	}
	if !strings.Contains(err.Error(), "550") {
		t.Errorf("error %q does not name the reply", err)
	}
	requireCause(t, err, "the mail server answered 550", addr)
	for _, m := range srv.Messages() {
		if m.Msg() {
			t.Errorf("a message was delivered despite the rejected recipient")
		}
	}
}

func TestMailerTemporaryRejectionIsTransient(t *testing.T) {
	_, addr := startSMTP(t, smtpmock.ConfigurationAttr{BlacklistedRcpttoEmails: []string{"busy@example.com"}}) // 421
	err := testMailer(addr).Send(context.Background(), Message{Channel: ChannelMail, To: []string{"busy@example.com"}, Body: "b"})
	if err == nil || IsPermanent(err) {
		t.Fatalf("err = %v (permanent %v), want a transient error", err, IsPermanent(err))
	}
}

func TestMailerUnreachableIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there any more: connection refused
	err = testMailer(addr).Send(context.Background(), Message{Channel: ChannelMail, To: []string{"alice@example.com"}, Body: "b"})
	if err == nil || IsPermanent(err) {
		t.Fatalf("err = %v (permanent %v), want a transient error", err, IsPermanent(err))
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Errorf("err = %v, want a network error", err)
	}
	requireCause(t, err, "connection refused by the mail server", addr)
}

// requireCause checks what a tenant reads of err: want, and never the
// server's address, which the full text (for the log) keeps.
func requireCause(t *testing.T, err error, want, addr string) {
	t.Helper()
	if got := outbound.Cause(err); got != want {
		t.Errorf("cause = %q, want %q (error: %v)", got, want, err)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error %q does not name %s for the log", err, addr)
	}
}

func TestMailerSlowServerTimesOut(t *testing.T) {
	_, addr := startSMTP(t, smtpmock.ConfigurationAttr{ResponseDelayMailfrom: 2}) // seconds
	ml := testMailer(addr)
	ml.Timeout = 300 * time.Millisecond
	start := time.Now()
	err := ml.Send(context.Background(), Message{Channel: ChannelMail, To: []string{"alice@example.com"}, Body: "b"})
	if err == nil || IsPermanent(err) {
		t.Fatalf("err = %v, want a transient time-out", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("err = %v, want a time-out", err)
	}
	requireCause(t, err, "timed out after 0.3 s", addr)
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("Send took %s with a 300ms time-out", d)
	}
}

func TestMailerContextDeadlineShortensTimeout(t *testing.T) {
	_, addr := startSMTP(t, smtpmock.ConfigurationAttr{ResponseDelayHelo: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := testMailer(addr).Send(ctx, Message{Channel: ChannelMail, To: []string{"alice@example.com"}, Body: "b"})
	if err == nil || IsPermanent(err) {
		t.Fatalf("err = %v, want a transient time-out", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("Send took %s with a 300ms context", d)
	}
}

func TestMailerBadSettingsArePermanent(t *testing.T) {
	for name, ml := range map[string]*Mailer{
		"no port":  {Addr: "localhost", From: "a@example.com", TLS: TLSNone},
		"tls mode": {Addr: "127.0.0.1:25", From: "a@example.com", TLS: "ssl"},
		"from":     {Addr: "127.0.0.1:25", From: "not an address", TLS: TLSNone},
	} {
		err := ml.Send(context.Background(), Message{Channel: ChannelMail, To: []string{"alice@example.com"}, Body: "b"})
		if err == nil || !IsPermanent(err) {
			t.Errorf("%s: err = %v, want permanent", name, err)
		}
	}
}

// tlsFront terminates TLS on a loopback port and forwards the plain SMTP
// dialogue to addr, so the mock serves an implicit-TLS (SMTPS) client.
func tlsFront(t *testing.T, addr string) (string, *x509.CertPool) {
	t.Helper()
	certSrv := httptest.NewUnstartedServer(nil) // only for its loopback test certificate
	certSrv.StartTLS()
	pool := x509.NewCertPool()
	pool.AddCert(certSrv.Certificate())
	certs := certSrv.TLS.Certificates
	certSrv.Close()
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: certs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c); up.Close() }()
				_, _ = io.Copy(c, up)
			}()
		}
	}()
	return l.Addr().String(), pool
}

func TestMailerImplicitTLS(t *testing.T) {
	srv, addr := startSMTP(t, smtpmock.ConfigurationAttr{})
	front, pool := tlsFront(t, addr)
	ml := testMailer(front)
	ml.TLS = TLSImplicit
	ml.TLSConfig = &tls.Config{RootCAs: pool}
	if err := ml.Send(context.Background(), Message{Channel: ChannelMail, To: []string{"alice@example.com"}, Subject: "over TLS", Body: "b"}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	msgs, err := srv.WaitForMessages(1, 5*time.Second)
	if err != nil {
		t.Fatalf("message not delivered over TLS: %v", err)
	}
	if !strings.Contains(msgs[0].MsgRequest(), "Subject: over TLS") {
		t.Errorf("message = %q", msgs[0].MsgRequest())
	}

	ml.TLSConfig = nil // the test certificate is not trusted by the system
	if err := ml.Send(context.Background(), Message{Channel: ChannelMail, To: []string{"alice@example.com"}, Body: "b"}); err == nil {
		t.Fatal("Send trusted an unknown certificate")
	}
}

func TestMailerStartTLSIsRequired(t *testing.T) {
	srv, addr := startSMTP(t, smtpmock.ConfigurationAttr{}) // offers no STARTTLS
	ml := testMailer(addr)
	ml.TLS = TLSStartTLS
	if err := ml.Send(context.Background(), Message{Channel: ChannelMail, To: []string{"alice@example.com"}, Body: "b"}); err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("err = %v, want a STARTTLS failure", err)
	}
	for _, m := range srv.Messages() {
		if m.Mailfrom() {
			t.Fatal("mail was sent in clear text")
		}
	}
}

// TestMailerTellsWhyTheServerWasRefused: a failure the mailer finds in
// what the server offers is told to the tenant (outbound.Cause, what
// send-test answers) with the setting that decides it, never the
// password; it used to be "the call to the mail server failed".
func TestMailerTellsWhyTheServerWasRefused(t *testing.T) {
	_, addr := startSMTP(t, smtpmock.ConfigurationAttr{}) // offers neither STARTTLS nor AUTH
	for _, tc := range []struct {
		tls  string
		want []string
	}{
		{TLSStartTLS, []string{"does not offer STARTTLS", "PLATFORM_SMTP_TLS=none"}},
		{TLSNone, []string{"SMTP AUTH", "PLATFORM_SMTP_USERNAME"}},
	} {
		ml := testMailer(addr)
		ml.TLS, ml.Username, ml.Password = tc.tls, "mailer", "pa55-w0rd-secret"
		err := ml.Send(context.Background(), Message{Channel: ChannelMail, To: []string{"alice@example.com"}, Body: "b"})
		cause := outbound.Cause(err)
		for _, w := range tc.want {
			if !strings.Contains(cause, w) {
				t.Errorf("TLS %s: cause %q lacks %q (err %v)", tc.tls, cause, w, err)
			}
		}
		if strings.Contains(cause, "pa55-w0rd-secret") || strings.Contains(cause, addr) {
			t.Errorf("TLS %s: the cause %q shows the password or the address", tc.tls, cause)
		}
	}
}

// TestMailerHTMLHeadersAndMessageID: a newsletter mail carries an HTML
// alternative, its list headers and the Message-ID the platform chose.
func TestMailerHTMLHeadersAndMessageID(t *testing.T) {
	srv, addr := startSMTP(t, smtpmock.ConfigurationAttr{})
	err := testMailer(addr).Send(context.Background(), Message{
		Channel: ChannelMail, To: []string{"alice@example.com"}, Subject: "News",
		Body: "plain", HTML: "<p>rich</p>", MessageID: "abc.def@mail.example.com",
		Headers: map[string]string{"List-Unsubscribe": "<https://x.example/u>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
	})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	msgs, err := srv.WaitForMessages(1, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	raw := msgs[0].MsgRequest()
	parsed, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"Message-Id": "<abc.def@mail.example.com>", "List-Unsubscribe": "<https://x.example/u>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"} {
		if got := parsed.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if !strings.Contains(parsed.Header.Get("Content-Type"), "multipart/alternative") || !strings.Contains(raw, "<p>rich</p>") || !strings.Contains(raw, "plain") {
		t.Errorf("want both bodies as alternatives: %q", raw)
	}
}

func TestMailerRefusesReservedOrBrokenHeaders(t *testing.T) {
	_, addr := startSMTP(t, smtpmock.ConfigurationAttr{})
	for _, h := range []map[string]string{{"Bcc": "mallory@example.com"}, {"X-A": "b\r\nBcc: m@example.com"}} {
		err := testMailer(addr).Send(context.Background(), Message{Channel: ChannelMail, To: []string{"a@example.com"}, Body: "x", Headers: h})
		if !IsPermanent(err) {
			t.Errorf("%v: err = %v, want permanent", h, err)
		}
	}
}
