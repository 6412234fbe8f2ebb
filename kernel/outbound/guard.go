// Package outbound makes HTTP calls to tenant-configured URLs (webhooks,
// pipeline http steps) without letting a tenant reach the platform's own
// network (DESIGN §5): every special-purpose address of the IANA registries
// (private, loopback, link-local, documentation, reserved, ...) and every
// address of this host's own interfaces are refused at connect time, on the
// address actually dialled after name resolution, so neither DNS rebinding
// nor a redirect can get around the check. Redirects are not followed at
// all. An allow-list (PLATFORM_OUTBOUND_ALLOW) opens named hosts, host:port
// pairs and CIDR ranges for local development and tests; it wins over every
// refusal. Cause turns a failed call into a text a tenant may read.
package outbound

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Guard decides which destinations outbound calls may reach and makes
// HTTP clients that enforce it.
type Guard struct {
	hosts     map[string]bool // host names and IP literals, any port
	hostPorts map[string]bool // "host:port"
	nets      []netip.Prefix
	// Resolver resolves host names (nil: the system resolver).
	Resolver  *net.Resolver
	transport *http.Transport
}

// RefusedError is a destination the guard refused.
type RefusedError struct {
	Host   string // as named in the URL
	Addr   string // the resolved ip:port
	Reason string // what the address is: "an address of this host", "a special-purpose address (Loopback, RFC 1122)", ...
}

const notAllowed = "which outbound calls may not reach unless PLATFORM_OUTBOUND_ALLOW names it"

func (e *RefusedError) Error() string {
	return fmt.Sprintf("outbound: %s resolves to %s, %s, %s", e.Host, e.Addr, e.Reason, notAllowed)
}

// New returns a guard opening the listed destinations: host names or IP
// literals (any port), host:port pairs, or CIDR ranges.
func New(allow []string) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{}, hostPorts: map[string]bool{}}
	for _, raw := range allow {
		if err := g.add(strings.TrimSpace(raw)); err != nil {
			return nil, err
		}
	}
	g.transport = &http.Transport{
		Proxy:                 nil, // a proxy would dial on our behalf, past the check
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          200,
		MaxIdleConnsPerHost:   20,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return g, nil
}

func (g *Guard) add(entry string) error {
	switch {
	case entry == "":
		return nil
	case strings.Contains(entry, "/"):
		p, err := netip.ParsePrefix(entry)
		if err != nil {
			return fmt.Errorf("outbound allow-list: %q is not a CIDR range", entry)
		}
		g.nets = append(g.nets, p.Masked())
	default:
		if h, p, err := net.SplitHostPort(entry); err == nil {
			g.hostPorts[normHost(h)+":"+p] = true
		} else {
			g.hosts[normHost(entry)] = true
		}
	}
	return nil
}

// normHost lower-cases names and writes IP literals canonically, so
// "[::1]", "::1" and "0:0::1" name the same destination.
func normHost(h string) string {
	h = strings.ToLower(strings.Trim(h, "[]"))
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().String()
	}
	return strings.TrimSuffix(h, ".")
}

// Client returns an HTTP client that enforces the guard, does not follow
// redirects (a 3xx is the answer) and gives up after timeout.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	return &http.Client{
		Transport:     g.transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// DialContext dials addr ("host:port") like net.Dialer, refusing blocked
// resolved addresses unless the allow-list opens the host or the address.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	named := g.allowedName(host, port)
	d := &net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		Resolver:  g.Resolver,
		// Control runs once per resolved address, just before connect:
		// the address checked is the one used.
		Control: func(_, address string, _ syscall.RawConn) error {
			return g.check(host, address, named)
		},
	}
	return d.DialContext(ctx, network, addr)
}

func (g *Guard) check(host, address string, named bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Host: host, Addr: address, Reason: "an unparsable address"}
	}
	if named || g.allowedAddr(ap) {
		return nil
	}
	if why := hostsOwn(ap.Addr()); why != "" {
		return &RefusedError{Host: host, Addr: address, Reason: why}
	}
	if blocked, why := Blocked(ap.Addr()); blocked {
		return &RefusedError{Host: host, Addr: address, Reason: why}
	}
	return nil
}

// hostsOwn names why ip is refused as this host's own address: a service
// listening on all interfaces answers there, whatever range the address
// lies in (a public or documentation address included). It is checked
// before the ranges so the reason says so. The interfaces are read on
// every dial, about 10-15 µs on Linux (measured; a connect costs far
// more), so an address added while the process runs counts at once. When
// they cannot be read, the dial is refused: fail closed.
func hostsOwn(ip netip.Addr) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "an address not checked against this host's own (" + err.Error() + ")"
	}
	ip = ip.Unmap().WithZone("")
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if own, ok := netip.AddrFromSlice(n.IP); ok && own.Unmap() == ip {
				return "an address of this host"
			}
		}
	}
	return ""
}

func (g *Guard) allowedName(host, port string) bool {
	h := normHost(host)
	return g.hosts[h] || g.hostPorts[h+":"+port]
}

func (g *Guard) allowedAddr(ap netip.AddrPort) bool {
	ip := ap.Addr().Unmap().WithZone("")
	if g.hosts[ip.String()] || g.hostPorts[ip.String()+":"+fmt.Sprint(ap.Port())] {
		return true
	}
	for _, p := range g.nets {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
