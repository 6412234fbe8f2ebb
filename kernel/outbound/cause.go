package outbound

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Failure is an error with a text a tenant may read (Cause) besides its
// full text (Error), which names resolvers, proxies and local addresses
// and belongs in the log only.
type Failure struct {
	Cause string
	Err   error
}

func (e *Failure) Error() string { return e.Err.Error() }
func (e *Failure) Unwrap() error { return e.Err }

// CallFailed marks err as the failure of a call to dest, as the tenant
// knows the destination ("example.com:443" from Dest, or "the sms
// provider" for one it never saw the address of), made with a time limit
// of timeout (0: unknown).
func CallFailed(dest string, timeout time.Duration, err error) error {
	return &Failure{Cause: describe(err, dest, timeout), Err: err}
}

// Cause is the text of err a tenant may read: the Cause of a Failure in
// err, a description of a network failure by its kind ("DNS lookup failed
// for example.com", "connection refused by example.com:443", "timed out
// after 30 s", "TLS handshake with example.com failed: ..."), or, for an
// error that is no network failure, err's own text (the platform's
// messages, which name no infrastructure).
func Cause(err error) string {
	var f *Failure
	switch {
	case err == nil:
		return ""
	case errors.As(err, &f):
		return f.Cause
	case isNetwork(err):
		return describe(err, destOf(err), 0)
	}
	return err.Error()
}

// Dest is the destination of a URL as "host:port", the port filled in
// from the scheme.
func Dest(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return "the destination"
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	if port == "" {
		return u.Hostname()
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func destOf(err error) string {
	var u *url.Error
	if errors.As(err, &u) {
		return Dest(u.URL)
	}
	return "the destination"
}

func isNetwork(err error) bool {
	var (
		netErr  net.Error // *net.OpError, *net.DNSError, *url.Error, syscall.Errno, time-outs
		refused *RefusedError
	)
	_, tlsErr := tlsFailure(err)
	return errors.As(err, &netErr) || errors.As(err, &refused) || tlsErr ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.Canceled)
}

// describe names the kind of a failed call to dest and what the tenant
// can act on, never a resolved, resolver, proxy or local address.
func describe(err error, dest string, timeout time.Duration) string {
	var (
		refused *RefusedError
		dnsErr  *net.DNSError
		opErr   *net.OpError
	)
	tlsDetail, isTLS := tlsFailure(err)
	switch {
	case errors.As(err, &refused):
		return refused.cause()
	case errors.As(err, &dnsErr):
		return dnsCause(dnsErr, hostOf(dest))
	case isTLS:
		return "TLS handshake with " + hostOf(dest) + " failed: " + tlsDetail
	case isTimeout(err):
		return timedOut(timeout)
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.As(err, &opErr) && opErr.Op == "proxyconnect":
		return "could not reach " + dest + " through the outbound proxy"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused by " + dest
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by " + dest
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return dest + " is unreachable"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return dest + " closed the connection before answering"
	}
	return requestProblem(err, dest)
}

// requestProblem is the text of an error net/http found in the request
// itself (an unsupported scheme, no host) or of a transport that refused
// it; any other failure is only named.
func requestProblem(err error, dest string) string {
	var u *url.Error
	if errors.As(err, &u) && !isNetwork(u.Err) {
		return u.Err.Error()
	}
	return "the call to " + dest + " failed"
}

// cause is the refusal as a tenant reads it: the host as named, not the
// address it resolved to.
func (e *RefusedError) cause() string {
	verb := " resolves to "
	if _, err := netip.ParseAddr(strings.Trim(e.Host, "[]")); err == nil {
		verb = " is "
	}
	return "refused: " + e.Host + verb + e.Reason + ", " + notAllowed
}

// hostOf is dest without its port.
func hostOf(dest string) string {
	if host, _, err := net.SplitHostPort(dest); err == nil {
		return host
	}
	return dest
}

func dnsCause(e *net.DNSError, host string) string {
	msg := "DNS lookup failed for " + host
	switch {
	case e.IsNotFound:
		return msg + ": no such host"
	case e.IsTimeout:
		return msg + ": timed out"
	}
	return msg
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
}

func timedOut(timeout time.Duration) string {
	if timeout <= 0 {
		return "timed out"
	}
	return "timed out after " + strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64) + " s"
}

// tlsFailure finds a failed TLS handshake in err and the part of its text
// about the peer's certificate or protocol (crypto/tls and crypto/x509
// texts name certificates, never addresses).
func tlsFailure(err error) (string, bool) {
	var (
		verify *tls.CertificateVerificationError
		record tls.RecordHeaderError
		opErr  *net.OpError
	)
	switch {
	case errors.As(err, &verify):
		return strings.TrimPrefix(verify.Err.Error(), "x509: "), true
	case strings.Contains(err.Error(), "net/http: TLS handshake timeout"): // an unexported type
		return "timed out", true
	case errors.As(err, &record):
		return "the server does not speak TLS", true
	case errors.As(err, &opErr) && (opErr.Op == "remote error" || opErr.Op == "local error"):
		return opErr.Op + ": " + opErr.Err.Error(), true // an alert: "remote error: tls: handshake failure"
	}
	return "", false
}
