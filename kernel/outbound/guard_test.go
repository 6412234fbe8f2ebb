package outbound_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
)

func TestBlockedClassifiesAddresses(t *testing.T) {
	t.Parallel()
	blocked := []string{
		"127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"169.254.169.254", "169.254.0.1", "0.0.0.0", "0.1.2.3", "100.64.0.1", "224.0.0.1", "255.255.255.255",
		"::1", "::", "fd00::1", "fc00::1", "fe80::1", "ff02::1",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0",
		"64:ff9b::7f00:1", "2002:7f00:1::1", "2002:a9fe:a9fe::1",
	}
	for _, s := range blocked {
		b, why := outbound.Blocked(netip.MustParseAddr(s))
		require.True(t, b, "%s must be blocked", s)
		require.NotEmpty(t, why)
	}
	public := []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"}
	for _, s := range public {
		b, why := outbound.Blocked(netip.MustParseAddr(s))
		require.False(t, b, "%s is public (%s)", s, why)
	}
}

// receiver counts the requests that reached it.
func receiver(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if h != nil {
			h(w, r)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func guard(t *testing.T, allow ...string) *http.Client {
	g, err := outbound.New(allow)
	require.NoError(t, err)
	return g.Client(5 * time.Second)
}

func requireRefused(t *testing.T, c *http.Client, url string) {
	t.Helper()
	res, err := c.Get(url)
	if res != nil {
		res.Body.Close()
	}
	var ref *outbound.RefusedError
	require.True(t, errors.As(err, &ref), "want a refusal for %s, got %v", url, err)
}

func TestLoopbackRefusedAtConnect(t *testing.T) {
	t.Parallel()
	srv, hits := receiver(t, nil)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c := guard(t)
	requireRefused(t, c, srv.URL)
	requireRefused(t, c, "http://localhost:"+port+"/") // a host name resolving to 127.0.0.1
	requireRefused(t, c, "http://0.0.0.0:"+port+"/")
	requireRefused(t, c, "http://[::ffff:127.0.0.1]:"+port+"/")
	requireRefused(t, c, "http://[::1]:"+port+"/")
	require.Zero(t, hits.Load(), "no refused request reached the server")
}

// TestMetadataAndPrivateRefusedBeforeAnyPacket: the check runs before
// connect, so these never leave the machine.
func TestMetadataAndPrivateRefusedBeforeAnyPacket(t *testing.T) {
	t.Parallel()
	c := guard(t)
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://192.168.0.1:8080/",
		"http://172.16.5.4/", "http://[fd00::1]/", "http://[fe80::1]/", "http://100.64.0.1/",
	} {
		requireRefused(t, c, u)
	}
}

func TestAllowListOpensNamedTargets(t *testing.T) {
	t.Parallel()
	srv, hits := receiver(t, nil)
	other, _ := receiver(t, nil)
	host, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	get := func(c *http.Client, url string) int {
		res, err := c.Get(url)
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, 204, get(guard(t, host), srv.URL), "an IP literal opens every port")
	require.Equal(t, 204, get(guard(t, "127.0.0.0/8"), srv.URL), "a CIDR range")
	require.Equal(t, 204, get(guard(t, " 127.0.0.1:"+port+" "), srv.URL), "host:port")
	requireRefused(t, guard(t, "127.0.0.1:"+port), other.URL) // only that port
	require.Equal(t, 204, get(guard(t, "LOCALHOST"), "http://localhost:"+port+"/"), "a host name, any case")
	requireRefused(t, guard(t, "localhost"), srv.URL) // the name opens the name, not 127.0.0.1
	require.EqualValues(t, 4, hits.Load())
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	target, targetHits := receiver(t, nil)
	srv, _ := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/inside", http.StatusFound)
	})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, allow := range [][]string{{"127.0.0.1:" + port}, {"127.0.0.1"}} {
		res, err := guard(t, allow...).Get(srv.URL)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusFound, res.StatusCode, "the redirect is the answer")
	}
	require.Zero(t, targetHits.Load(), "the redirect target was never called")
}

func TestBadAllowEntry(t *testing.T) {
	t.Parallel()
	_, err := outbound.New([]string{"10.0.0.0/33"})
	require.Error(t, err)
}

// TestHostsOwnAddressRefused: an address of one of this machine's own
// interfaces is refused as such, whatever range it lies in (here the
// machine's interface may sit in a documentation range, as on the host the
// issue was found on), and an explicit allow-list entry still opens it.
func TestHostsOwnAddressRefused(t *testing.T) {
	t.Parallel()
	ip := interfaceAddr(t)
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	require.NoError(t, err)
	var hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)

	_, err = guard(t).Get(srv.URL)
	var ref *outbound.RefusedError
	require.ErrorAs(t, err, &ref, "%s is this host's own address", ip)
	require.Equal(t, "an address of this host", ref.Reason)
	require.Zero(t, hits.Load())

	res, err := guard(t, ip.String()).Get(srv.URL)
	require.NoError(t, err, "the allow-list names it")
	res.Body.Close()
	require.EqualValues(t, 1, hits.Load())
}

// interfaceAddr is an address of one of this machine's interfaces other
// than loopback (link-local ones need a zone to listen on).
func interfaceAddr(t *testing.T) netip.Addr {
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, _ := netip.AddrFromSlice(n.IP)
		if ip = ip.Unmap(); ip.IsValid() && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() {
			return ip
		}
	}
	t.Skip("this machine has no interface address besides loopback and link-local")
	return netip.Addr{}
}
