package outbound_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
	"platform/kernel/outbound/outboundtest"
)

// callErr makes a real call through a guard and returns the tenant's text
// of its error and the error.
func callErr(t *testing.T, g *outbound.Guard, timeout time.Duration, url string) (string, error) {
	t.Helper()
	res, err := g.Client(timeout).Get(url)
	if res != nil {
		res.Body.Close()
	}
	require.Error(t, err, url)
	return outbound.Cause(outbound.CallFailed(outbound.Dest(url), timeout, err)), err
}

func newGuard(t *testing.T, allow ...string) *outbound.Guard {
	g, err := outbound.New(allow)
	require.NoError(t, err)
	return g
}

// TestCauseHidesTheResolver: the resolver's error names the name server
// ("lookup ... on 10.255.255.53:53"); the tenant reads the host only, or
// the name the caller gives a destination the tenant never saw.
func TestCauseHidesTheResolver(t *testing.T) {
	t.Parallel()
	g := newGuard(t)
	g.Resolver = outboundtest.NXDomainResolver(t)
	cause, raw := callErr(t, g, 5*time.Second, "https://hooks.example.test/in")
	var dnsErr *net.DNSError
	require.ErrorAs(t, raw, &dnsErr)
	require.Contains(t, raw.Error(), dnsErr.Server, "the raw text names the name server")
	require.Equal(t, "DNS lookup failed for hooks.example.test: no such host", cause)
	require.Equal(t, "DNS lookup failed for the sms provider: no such host",
		outbound.Cause(fmt.Errorf("notify: sms: %w", outbound.CallFailed("the sms provider", time.Second, raw))))
}

func TestCauseOfRefusedAndFailedConnections(t *testing.T) {
	t.Parallel()
	closed := closedPort(t)
	silent := silentServer(t, func(net.Conn) {}) // accepts, never answers
	hangUp := silentServer(t, func(c net.Conn) { // reads the request, closes without answering
		_, _ = http.ReadRequest(bufio.NewReader(c))
		c.Close()
	})
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	g := newGuard(t, "127.0.0.1")
	for _, c := range []struct {
		url     string
		timeout time.Duration
		want    string
	}{
		{"http://" + closed + "/", 5 * time.Second, "connection refused by " + closed},
		{"http://" + silent + "/", 200 * time.Millisecond, "timed out after 0.2 s"},
		{"http://" + hangUp + "/", 5 * time.Second, hangUp + " closed the connection before answering"},
		{tlsSrv.URL, 5 * time.Second, "TLS handshake with 127.0.0.1 failed: certificate signed by unknown authority"},
		{"ftp://" + closed + "/", 5 * time.Second, `unsupported protocol scheme "ftp"`},
	} {
		cause, _ := callErr(t, g, c.timeout, c.url)
		require.Equal(t, c.want, cause, c.url)
	}

	cause, raw := callErr(t, newGuard(t), 5*time.Second, "http://10.0.0.1/hook")
	require.Contains(t, raw.Error(), "10.0.0.1:80", "the raw text names the resolved address")
	require.Equal(t, "refused: 10.0.0.1 is a special-purpose address (Private-Use, RFC 1918), "+
		"which outbound calls may not reach unless PLATFORM_OUTBOUND_ALLOW names it", cause)
	cause, _ = callErr(t, newGuard(t), 5*time.Second, "http://localhost:"+strings.Split(closed, ":")[1]+"/")
	require.Regexp(t, `^refused: localhost resolves to an address of this host, which`, cause, "the host as named, not what it resolved to")
}

// TestCauseKeepsThePlatformsOwnMessages: an error that is no network
// failure is the platform's own text and stays as it is; a network error
// nobody marked is still described.
func TestCauseKeepsThePlatformsOwnMessages(t *testing.T) {
	t.Parallel()
	require.Equal(t, "notify: channel not configured: mail", outbound.Cause(errors.New("notify: channel not configured: mail")))
	require.Empty(t, outbound.Cause(nil))
	closed := closedPort(t)
	_, err := newGuard(t, "127.0.0.1").Client(time.Second).Get("http://" + closed + "/x")
	require.Equal(t, "connection refused by "+closed, outbound.Cause(fmt.Errorf("read the answer: %w", err)))
	_, err = net.Dial("tcp", closed)
	require.Equal(t, "connection refused by the destination", outbound.Cause(err), "no URL names it")
}

// closedPort is a loopback host:port nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// silentServer accepts connections on loopback and hands each to handle.
func silentServer(t *testing.T, handle func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			handle(c)
		}
	}()
	return ln.Addr().String()
}
