package outbound

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Refusal tells at save time that calls to rawURL will be refused, so the
// caller can say so instead of accepting the URL silently: it answers the
// *RefusedError of the destination when the URL names an IP address, or
// localhost (which resolves to this host's loopback without asking DNS,
// RFC 6761), that the guard refuses. A host name is not resolved here: its
// addresses may change until the call, where the guard checks them. nil
// when the destination may be reached, or rawURL is no absolute URL (field
// validation says so).
func (g *Guard) Refusal(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || g.allowedName(host, port) {
		return nil
	}
	var first error
	for _, ip := range literalAddrs(host) {
		err := g.check(host, netip.AddrPortFrom(ip, uint16(p)).String(), false)
		if err == nil {
			return nil // the dialer tries every address: one reachable is enough
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// literalAddrs are the addresses host stands for without DNS: itself when
// it is an IP literal, the loopback addresses for localhost names.
func literalAddrs(host string) []netip.Addr {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip, err := netip.ParseAddr(h); err == nil {
		return []netip.Addr{ip.Unmap().WithZone("")}
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}
	}
	return nil
}
