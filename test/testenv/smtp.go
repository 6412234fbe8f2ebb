package testenv

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Mail is one message an SMTPServer accepted.
type Mail struct {
	From   string
	To     []string
	Data   []byte
	Header mail.Header
	Body   string // the raw body, after the header
}

// SMTPServer is a real SMTP server on a loopback port (emersion/go-smtp)
// that keeps what it accepts and can refuse on demand: a test's mail
// server, without TLS or authentication.
type SMTPServer struct {
	Addr string
	srv  *smtp.Server

	mu       sync.Mutex
	mails    []Mail
	failNext int            // answer the next DATA commands with failCode
	failCode int            // a 4xx code
	reject   map[string]int // recipient -> 5xx code of RCPT TO
	hold     time.Duration  // pause before answering DATA
}

// NewSMTPServer starts a server for the test; it stops at cleanup.
func NewSMTPServer(t testing.TB) *SMTPServer {
	t.Helper()
	s := &SMTPServer{reject: map[string]int{}}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{srv: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout, s.srv.WriteTimeout = 30*time.Second, 30*time.Second
	s.srv.MaxMessageBytes = 4 << 20
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	go func() { _ = s.srv.Serve(l) }()
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// FailNext answers the next n messages' DATA with code (421, 454, ...).
func (s *SMTPServer) FailNext(n, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext, s.failCode = n, code
}

// Reject refuses the recipient with code (550, ...) at RCPT TO.
func (s *SMTPServer) Reject(to string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reject[strings.ToLower(to)] = code
}

// Hold pauses every DATA answer for d (a slow server).
func (s *SMTPServer) Hold(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = d
}

// Mails returns what was accepted so far.
func (s *SMTPServer) Mails() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail{}, s.mails...)
}

// WaitFor waits until at least n mails arrived (or timeout) and returns them.
func (s *SMTPServer) WaitFor(n int, timeout time.Duration) []Mail {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if got := s.Mails(); len(got) >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s.Mails()
}

// dataReply is the refusal of the next DATA, if any, and the pause.
func (s *SMTPServer) dataReply() (*smtp.SMTPError, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failNext > 0 {
		s.failNext--
		return &smtp.SMTPError{Code: s.failCode, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "try again later"}, 0
	}
	return nil, s.hold
}

func (s *SMTPServer) accept(m Mail) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mails = append(s.mails, m)
}

type smtpSession struct {
	srv  *SMTPServer
	from string
	to   []string
}

func (c *smtpSession) Reset()        { c.from, c.to = "", nil }
func (c *smtpSession) Logout() error { return nil }

func (c *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	c.from = from
	return nil
}

func (c *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	c.srv.mu.Lock()
	code := c.srv.reject[strings.ToLower(to)]
	c.srv.mu.Unlock()
	if code != 0 {
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	c.to = append(c.to, to)
	return nil
}

func (c *smtpSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	refusal, hold := c.srv.dataReply()
	if refusal != nil {
		return refusal
	}
	time.Sleep(hold)
	m := Mail{From: c.from, To: c.to, Data: data}
	if msg, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
		body, _ := io.ReadAll(msg.Body)
		m.Header, m.Body = msg.Header, string(body)
	}
	c.srv.accept(m)
	return nil
}

// Part is the decoded body of the mail's part of the media type (such
// as text/html), or of the whole mail when it has that type; "" if none.
func (m Mail) Part(mediaType string) string {
	return partOf(m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), []byte(m.Body), mediaType)
}

func partOf(contentType, encoding string, body []byte, want string) string {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	if mt == want {
		return decodePart(encoding, body)
	}
	if !strings.HasPrefix(mt, "multipart/") {
		return ""
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextRawPart()
		if err != nil {
			return ""
		}
		data, _ := io.ReadAll(p)
		if s := partOf(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), data, want); s != "" {
			return s
		}
	}
}

func decodePart(encoding string, body []byte) string {
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		out, _ := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		return string(out)
	case "base64":
		out, _ := io.ReadAll(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(bytes.ReplaceAll(body, []byte("\r\n"), nil))))
		return string(out)
	}
	return string(body)
}
