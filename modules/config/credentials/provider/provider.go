// Package provider holds the credential providers: one implementation per
// credential type behind one interface, which the credential commands
// (test, refresh, revoke; activities/credentials) call with the opened
// values. Every call leaves through the outbound guard. Errors carry texts
// a tenant may read: they name fields, hosts and status codes, never a
// value of the credential.
package provider

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sort"
	"time"
)

// Values are a credential's clear values (the JSON object it was given).
type Values = map[string]any

// Provider talks to the service a credential belongs to.
type Provider interface {
	// Test checks that the service accepts the credential.
	Test(ctx context.Context, v Values) error
	// Refresh obtains new values from the service (new tokens); the
	// answer replaces the stored values whole.
	Refresh(ctx context.Context, v Values) (Values, error)
	// Revoke ends the credential at the service. Remote is false when the
	// type has no revocation at its service: the platform then only stops
	// using it.
	Revoke(ctx context.Context, v Values) (remote bool, err error)
}

// ErrUnsupported: the command does not apply to the credential's type
// (refreshing a password).
var ErrUnsupported = errors.New("provider: the command does not apply to this type of credential")

// Failure is a verdict of the service against the credential, or a call
// that did not reach it; Reason is safe to show.
type Failure struct {
	Reason string
	// Expired: the service says the grant is no longer valid (OAuth
	// invalid_grant): the credential is expired.
	Expired bool
	Err     error // for the log; may name local addresses, never values
}

func (f *Failure) Error() string { return f.Reason }
func (f *Failure) Unwrap() error { return f.Err }

// InvalidError: the values lack or misshape what the command needs.
type InvalidError struct {
	Field  string // e.g. credentials.url
	Reason string
}

func (e *InvalidError) Error() string { return e.Field + ": " + e.Reason }

// Timeout bounds one call to a service.
const Timeout = 10 * time.Second

// Deps are what providers call through.
type Deps struct {
	// HTTP is a client of the outbound guard (outbound.Guard.Client).
	HTTP *http.Client
	// Dial dials through the outbound guard (outbound.Guard.DialContext).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLS, when set, is the base TLS configuration of SMTP (a private CA).
	TLS *tls.Config
}

// Set is the providers by credential type.
type Set map[string]Provider

// New returns a provider for each supported type.
func New(d Deps) Set {
	return Set{
		"http-basic": httpProbe{d: d, auth: basicAuth},
		"api-key":    httpProbe{d: d, auth: apiKeyAuth},
		"bearer":     httpProbe{d: d, auth: bearerAuth},
		"oauth2":     oauth2Provider{d: d},
		"smtp":       smtpProvider{d: d},
	}
}

// Types lists the supported types, sorted.
func (s Set) Types() []string {
	out := make([]string, 0, len(s))
	for t := range s {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
