package provider

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"net/textproto"
	"strconv"

	"platform/kernel/outbound"
)

// smtpProvider tests a mail server's login: connect, EHLO, STARTTLS
// (values.tls "starttls", the default; "tls" for implicit TLS, port 465;
// "none" only for a server on a trusted network), then AUTH with
// values.username and values.password. Nothing is sent.
type smtpProvider struct{ d Deps }

var _ Provider = smtpProvider{}

func (p smtpProvider) Test(ctx context.Context, v Values) error {
	cfg, err := smtpConfigOf(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	conn, err := p.d.Dial(ctx, "tcp", cfg.addr)
	if err != nil {
		return &Failure{Reason: outbound.Cause(outbound.CallFailed(cfg.addr, Timeout, err)), Err: err}
	}
	defer conn.Close()
	dl, _ := ctx.Deadline()
	_ = conn.SetDeadline(dl)
	return p.session(conn, cfg)
}

func (p smtpProvider) session(conn net.Conn, cfg smtpConfig) error {
	tlsConf := p.tlsConfig(cfg.host)
	if cfg.mode == "tls" {
		tc := tls.Client(conn, tlsConf)
		if err := tc.Handshake(); err != nil {
			return &Failure{Reason: outbound.Cause(outbound.CallFailed(cfg.addr, Timeout, err)), Err: err}
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, cfg.host)
	if err != nil {
		return smtpFailure(cfg.addr, "greeting", err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return smtpFailure(cfg.addr, "EHLO", err)
	}
	if cfg.mode == "starttls" {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return &Failure{Reason: fmt.Sprintf("the mail server %s does not offer STARTTLS", cfg.addr)}
		}
		if err := c.StartTLS(tlsConf); err != nil {
			return smtpFailure(cfg.addr, "STARTTLS", err)
		}
	}
	if ok, _ := c.Extension("AUTH"); !ok {
		return &Failure{Reason: fmt.Sprintf("the mail server %s does not offer AUTH", cfg.addr)}
	}
	if err := c.Auth(plainAuth{user: cfg.user, pass: cfg.pass}); err != nil {
		return smtpFailure(cfg.addr, "AUTH", err)
	}
	_ = c.Quit()
	return nil
}

func (p smtpProvider) tlsConfig(host string) *tls.Config {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if p.d.TLS != nil {
		conf = p.d.TLS.Clone()
	}
	if conf.ServerName == "" {
		conf.ServerName = host
	}
	return conf
}

func (smtpProvider) Refresh(context.Context, Values) (Values, error) { return nil, ErrUnsupported }

func (smtpProvider) Revoke(context.Context, Values) (bool, error) { return false, nil }

type smtpConfig struct {
	host, addr, user, pass, mode string
}

func smtpConfigOf(v Values) (smtpConfig, error) {
	var c smtpConfig
	var err error
	if c.host, err = str(v, "host", true); err != nil {
		return c, err
	}
	port := int64(587)
	if raw, ok := v["port"]; ok {
		n, isInt := raw.(int64)
		if f, isFloat := raw.(float64); isFloat && f == float64(int64(f)) {
			n, isInt = int64(f), true
		}
		if !isInt || n < 1 || n > 65535 {
			return c, &InvalidError{Field: "credentials.port", Reason: "must be a port number from 1 to 65535"}
		}
		port = n
	}
	c.addr = net.JoinHostPort(c.host, strconv.FormatInt(port, 10))
	if c.user, err = str(v, "username", true); err != nil {
		return c, err
	}
	if c.pass, err = str(v, "password", true); err != nil {
		return c, err
	}
	if c.mode, err = str(v, "tls", false); err != nil {
		return c, err
	}
	switch c.mode {
	case "":
		c.mode = "starttls"
	case "starttls", "tls", "none":
	default:
		return c, &InvalidError{Field: "credentials.tls", Reason: "must be starttls, tls or none"}
	}
	return c, nil
}

// smtpFailure names the step and the server's reply code, never its
// text (a server may echo what it was sent).
func smtpFailure(addr, step string, err error) error {
	var te *textproto.Error
	if errors.As(err, &te) {
		return &Failure{Reason: fmt.Sprintf("the mail server %s refused %s with %d", addr, step, te.Code), Err: err}
	}
	return &Failure{Reason: fmt.Sprintf("%s with the mail server failed: %s", step, outbound.Cause(outbound.CallFailed(addr, Timeout, err))), Err: err}
}

// plainAuth is SASL PLAIN (RFC 4616). net/smtp's PlainAuth refuses a
// connection without TLS unless the host is named localhost; here the
// tls mode decides, and "none" is the tenant's explicit choice.
type plainAuth struct{ user, pass string }

func (a plainAuth) Start(*smtp.ServerInfo) (string, []byte, error) {
	return "PLAIN", []byte("\x00" + a.user + "\x00" + a.pass), nil
}

func (a plainAuth) Next(_ []byte, more bool) ([]byte, error) {
	if more {
		return nil, errors.New("unexpected server challenge")
	}
	return nil, nil
}
