package outbound

import "net/netip"

// blockedRanges are destinations no tenant-configured URL may reach unless
// the allow-list names them: they address this machine, its network or
// infrastructure (cloud metadata at 169.254.169.254 is link-local).
var blockedRanges = mustPrefixes(
	"0.0.0.0/8",      // "this network"; 0.0.0.0 reaches the local host
	"10.0.0.0/8",     // private
	"100.64.0.0/10",  // carrier-grade NAT, shared address space
	"127.0.0.0/8",    // loopback
	"169.254.0.0/16", // link-local, cloud metadata services
	"172.16.0.0/12",  // private
	"192.0.0.0/24",   // IETF protocol assignments
	"192.168.0.0/16", // private
	"198.18.0.0/15",  // benchmarking networks
	"224.0.0.0/4",    // multicast
	"240.0.0.0/4",    // reserved, broadcast
	"::/128",         // unspecified
	"::1/128",        // loopback
	"fc00::/7",       // unique local (ULA)
	"fe80::/10",      // link-local
	"ff00::/8",       // multicast
	"100::/64",       // discard-only
	"2001:db8::/32",  // documentation
	"64:ff9b:1::/48", // local-use IPv4/IPv6 translation
)

// embedsIPv4 are IPv6 ranges that carry an IPv4 address a gateway may
// reach on the caller's behalf; the embedded address is checked too.
var embedsIPv4 = []struct {
	prefix netip.Prefix
	offset int // byte offset of the IPv4 address
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12}, // NAT64
	{netip.MustParsePrefix("2002::/16"), 2},     // 6to4
}

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Blocked reports whether ip is a private, loopback, link-local or otherwise
// non-public destination, and names the reason. IPv4-mapped IPv6 addresses
// (::ffff:127.0.0.1) are judged as the IPv4 address they are.
func Blocked(ip netip.Addr) (bool, string) {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() {
		return true, "invalid address"
	}
	for _, p := range blockedRanges {
		if p.Contains(ip) {
			return true, reason(ip)
		}
	}
	for _, e := range embedsIPv4 {
		if e.prefix.Contains(ip) {
			b := ip.As16()
			v4 := netip.AddrFrom4([4]byte(b[e.offset : e.offset+4]))
			if blocked, why := Blocked(v4); blocked {
				return true, "IPv6 address embedding " + why + " IPv4 " + v4.String()
			}
		}
	}
	return false, ""
}

func reason(ip netip.Addr) string {
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsMulticast():
		return "multicast"
	}
	return "reserved"
}
