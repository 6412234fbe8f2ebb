package provider_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
	"platform/modules/config/credentials/provider"
)

const secret = "s3cret-never-in-an-error-7c1f"

// set is the providers through a guard that opens loopback, as tests and
// local development configure it; pool trusts the test TLS certificate.
func set(t *testing.T, pool *x509.CertPool) provider.Set {
	t.Helper()
	g, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	return provider.New(provider.Deps{HTTP: g.Client(provider.Timeout), Dial: g.DialContext, TLS: &tls.Config{RootCAs: pool}})
}

// requireFailure: err is a Failure whose text names no secret.
func requireFailure(t *testing.T, err error) *provider.Failure {
	t.Helper()
	var f *provider.Failure
	require.True(t, errors.As(err, &f), "want a Failure, got %v", err)
	require.NotContains(t, f.Error(), secret)
	return f
}

func requireInvalid(t *testing.T, err error, field string) {
	t.Helper()
	var e *provider.InvalidError
	require.True(t, errors.As(err, &e), "want an InvalidError, got %v", err)
	require.Equal(t, field, e.Field)
	require.NotContains(t, e.Error(), secret)
}

// TestHTTPProviders: http-basic, api-key and bearer are accepted by a 2xx
// answer to the configured URL carrying the credential, refused with the
// status otherwise; an unreachable service or a missing value fails
// without quoting a value.
func TestHTTPProviders(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		ok := (u == "me" && p == secret) || r.Header.Get("X-API-Key") == secret || r.Header.Get("X-Custom") == secret ||
			r.Header.Get("Authorization") == "Bearer "+secret
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(secret)) // a hostile answer echoing the value
		}
	}))
	defer srv.Close()
	ps := set(t, nil)
	ctx := context.Background()
	cases := []struct {
		typ  string
		good provider.Values
		bad  provider.Values
	}{
		{"http-basic", provider.Values{"url": srv.URL, "username": "me", "password": secret}, provider.Values{"url": srv.URL, "username": "me", "password": "nope"}},
		{"api-key", provider.Values{"url": srv.URL, "key": secret}, provider.Values{"url": srv.URL, "key": "nope"}},
		{"api-key", provider.Values{"url": srv.URL, "key": secret, "header": "X-Custom"}, provider.Values{"url": srv.URL, "key": secret, "header": "X-Other"}},
		{"bearer", provider.Values{"url": srv.URL, "token": secret}, provider.Values{"url": srv.URL, "token": "nope"}},
	}
	for _, c := range cases {
		p := ps[c.typ]
		require.NoError(t, p.Test(ctx, c.good), c.typ)
		f := requireFailure(t, p.Test(ctx, c.bad))
		require.Contains(t, f.Reason, "HTTP 401", c.typ)
		_, err := p.Refresh(ctx, c.good)
		require.ErrorIs(t, err, provider.ErrUnsupported)
		remote, err := p.Revoke(ctx, c.good)
		require.NoError(t, err)
		require.False(t, remote, "no revocation endpoint: the platform only stops using it")
	}
	requireInvalid(t, ps["http-basic"].Test(ctx, provider.Values{"username": "me", "password": secret}), "credentials.url")
	requireInvalid(t, ps["http-basic"].Test(ctx, provider.Values{"url": "ftp://x", "username": "me", "password": secret}), "credentials.url")
	requireInvalid(t, ps["http-basic"].Test(ctx, provider.Values{"url": srv.URL, "username": "me"}), "credentials.password")
	requireInvalid(t, ps["api-key"].Test(ctx, provider.Values{"url": srv.URL, "key": secret, "header": "Bad Header"}), "credentials.header")

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	f := requireFailure(t, ps["bearer"].Test(ctx, provider.Values{"url": closed.URL + "/?k=" + secret, "token": secret}))
	require.Contains(t, f.Reason, "refused")

	guarded := provider.New(provider.Deps{HTTP: mustGuard(t).Client(provider.Timeout)})
	f = requireFailure(t, guarded["bearer"].Test(ctx, provider.Values{"url": srv.URL, "token": secret}))
	require.Contains(t, f.Reason, "PLATFORM_OUTBOUND_ALLOW", "loopback is refused by the guard unless opened")
}

func mustGuard(t *testing.T) *outbound.Guard {
	g, err := outbound.New(nil)
	require.NoError(t, err)
	return g
}

// tokenServer is an OAuth 2.0 authorization server's token and
// revocation endpoints (RFC 6749, RFC 7009) for one client.
type tokenServer struct {
	*httptest.Server
	mu      sync.Mutex
	refresh string // the valid refresh token; rotated on use
	revoked []string
	down    bool // the revocation endpoint answers 503
}

func newTokenServer(t *testing.T) *tokenServer {
	ts := &tokenServer{refresh: "rt-1"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", ts.token)
	mux.HandleFunc("POST /revoke", ts.revoke)
	mux.HandleFunc("GET /api", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer at-2" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	})
	ts.Server = httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) client(r *http.Request) bool {
	id, sec, ok := r.BasicAuth()
	if !ok {
		id, sec = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	return id == "app" && sec == secret
}

func oauthError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": "echo " + secret})
}

func (ts *tokenServer) token(w http.ResponseWriter, r *http.Request) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if !ts.client(r) {
		oauthError(w, 401, "invalid_client")
		return
	}
	ans := map[string]any{"access_token": "at-2", "token_type": "Bearer", "expires_in": 3600}
	switch r.PostFormValue("grant_type") {
	case "client_credentials":
	case "refresh_token":
		if r.PostFormValue("refresh_token") != ts.refresh {
			oauthError(w, 400, "invalid_grant")
			return
		}
		n, _ := strconv.Atoi(ts.refresh[3:])
		ts.refresh = "rt-" + strconv.Itoa(n+1)
		ans["refresh_token"] = ts.refresh
	default:
		oauthError(w, 400, "unsupported_grant_type")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(ans)
}

func (ts *tokenServer) revoke(w http.ResponseWriter, r *http.Request) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	switch {
	case ts.down:
		w.WriteHeader(http.StatusServiceUnavailable)
	case !ts.client(r):
		oauthError(w, 401, "invalid_client")
	default:
		ts.revoked = append(ts.revoked, r.PostFormValue("token_type_hint")+":"+r.PostFormValue("token"))
	}
}

// TestOAuth2Provider: client credentials and refresh-token grants against
// a local authorization server; refresh rotates the tokens; a used-up
// refresh token is invalid_grant (Expired); revoke is RFC 7009.
func TestOAuth2Provider(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t)
	p := set(t, nil)["oauth2"]
	ctx := context.Background()
	client := provider.Values{"tokenUrl": ts.URL + "/token", "clientId": "app", "clientSecret": secret}

	require.NoError(t, p.Test(ctx, client), "client credentials")
	bodyAuth := provider.Values{"tokenUrl": ts.URL + "/token", "clientId": "app", "clientSecret": secret, "clientAuth": "body"}
	require.NoError(t, p.Test(ctx, bodyAuth), "client authentication in the form")
	f := requireFailure(t, p.Test(ctx, provider.Values{"tokenUrl": ts.URL + "/token", "clientId": "app", "clientSecret": "wrong"}))
	require.Equal(t, "the token endpoint answered HTTP 401, error invalid_client", f.Reason)
	require.False(t, f.Expired)

	got, err := p.Refresh(ctx, client)
	require.NoError(t, err)
	require.Equal(t, "at-2", got["accessToken"])
	require.NotEmpty(t, got["expiresAt"])
	require.Equal(t, secret, got["clientSecret"], "the other values are kept")

	user := provider.Values{"tokenUrl": ts.URL + "/token", "clientId": "app", "clientSecret": secret, "refreshToken": "rt-1",
		"revocationUrl": ts.URL + "/revoke", "url": ts.URL + "/api", "accessToken": "at-1"}
	require.Error(t, p.Test(ctx, user), "the old access token is refused by the API")
	refreshed, err := p.Refresh(ctx, user)
	require.NoError(t, err)
	require.Equal(t, "rt-2", refreshed["refreshToken"], "rotated")
	require.NoError(t, p.Test(ctx, refreshed), "the new access token is accepted")

	_, err = p.Refresh(ctx, user) // rt-1 again: used up
	f = requireFailure(t, err)
	require.True(t, f.Expired, "invalid_grant: %s", f.Reason)

	delete(user, "url")
	requireInvalid(t, p.Test(ctx, user), "credentials.url")

	remote, err := p.Revoke(ctx, refreshed)
	require.NoError(t, err)
	require.True(t, remote)
	require.Equal(t, []string{"refresh_token:rt-2"}, ts.revoked)
	ts.down = true
	_, err = p.Revoke(ctx, refreshed)
	require.Contains(t, requireFailure(t, err).Reason, "HTTP 503")
	_, err = p.Revoke(ctx, client)
	requireInvalid(t, err, "credentials.revocationUrl")
	_, err = p.Refresh(ctx, provider.Values{"clientId": "app"})
	requireInvalid(t, err, "credentials.tokenUrl")
}

// smtpServer is a real SMTP server (emersion/go-smtp) on loopback with
// STARTTLS and AUTH PLAIN for one user.
func smtpServer(t *testing.T, startTLS bool) (string, *x509.CertPool) {
	t.Helper()
	certSrv := httptest.NewUnstartedServer(nil) // only for its loopback certificate
	certSrv.StartTLS()
	pool := x509.NewCertPool()
	pool.AddCert(certSrv.Certificate())
	certs := certSrv.TLS.Certificates
	certSrv.Close()
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &authSession{}, nil }))
	s.Domain = "localhost"
	if startTLS {
		s.TLSConfig = &tls.Config{Certificates: certs}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return l.Addr().String(), pool
}

type authSession struct{}

func (authSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (authSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != "mailer" || pass != secret {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials " + secret}
		}
		return nil
	}), nil
}
func (authSession) Mail(string, *smtp.MailOptions) error { return nil }
func (authSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (authSession) Data(io.Reader) error                 { return nil }
func (authSession) Reset()                               {}
func (authSession) Logout() error                        { return nil }

// TestSMTPProvider: connect, STARTTLS, AUTH against a local server; a
// wrong password is the server's 535; a server without STARTTLS is
// refused before the password is sent; implicit TLS to a plain server
// fails the handshake.
func TestSMTPProvider(t *testing.T) {
	t.Parallel()
	addr, pool := smtpServer(t, true)
	host, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	p := set(t, pool)["smtp"]
	ctx := context.Background()
	good := provider.Values{"host": host, "port": int64(n), "username": "mailer", "password": secret}
	require.NoError(t, p.Test(ctx, good))

	bad := provider.Values{"host": host, "port": float64(n), "username": "mailer", "password": "wrong"}
	require.Contains(t, requireFailure(t, p.Test(ctx, bad)).Reason, "refused AUTH with 535")

	plainAddr, _ := smtpServer(t, false)
	_, plainPort, _ := net.SplitHostPort(plainAddr)
	np, _ := strconv.Atoi(plainPort)
	noTLS := provider.Values{"host": host, "port": int64(np), "username": "mailer", "password": secret}
	require.Contains(t, requireFailure(t, p.Test(ctx, noTLS)).Reason, "does not offer STARTTLS")
	noTLS["tls"] = "tls"
	requireFailure(t, p.Test(ctx, noTLS))

	requireInvalid(t, p.Test(ctx, provider.Values{"host": host, "port": int64(70000), "username": "u", "password": secret}), "credentials.port")
	requireInvalid(t, p.Test(ctx, provider.Values{"host": host, "username": "u", "password": secret, "tls": "ssl"}), "credentials.tls")
	requireInvalid(t, p.Test(ctx, provider.Values{"port": int64(n), "username": "u", "password": secret}), "credentials.host")
	_, err := p.Refresh(ctx, good)
	require.ErrorIs(t, err, provider.ErrUnsupported)
}
