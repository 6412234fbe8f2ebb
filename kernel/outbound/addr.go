package outbound

import (
	"fmt"
	"net/netip"
)

// Blocked reports whether ip lies in a special-purpose range (special.go)
// that no tenant-configured URL may reach unless the allow-list names it:
// these address this machine, its networks or infrastructure (cloud
// metadata at 169.254.169.254 is link-local). The reason names the range.
// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are judged as the IPv4
// address they are, NAT64 and 6to4 addresses as the IPv4 address they
// embed.
func Blocked(ip netip.Addr) (bool, string) {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() {
		return true, "an invalid address"
	}
	r, ok := narrowestRange(ip)
	switch {
	case !ok:
		return false, ""
	case r.embeds == 0:
		return true, fmt.Sprintf("a special-purpose address (%s, %s)", r.name, r.rfc)
	}
	b := ip.As16()
	v4 := netip.AddrFrom4([4]byte(b[r.embeds : r.embeds+4]))
	if blocked, why := Blocked(v4); blocked {
		return true, fmt.Sprintf("an IPv6 address (%s, %s) embedding %s, %s", r.name, r.rfc, v4, why)
	}
	return false, ""
}

// narrowestRange is the most specific range holding ip, so the reason
// names the sub-registration (192.0.0.9: Port Control Protocol Anycast)
// rather than the block around it.
func narrowestRange(ip netip.Addr) (specialRange, bool) {
	var best specialRange
	found := false
	for _, r := range specialRanges {
		if r.prefix.Contains(ip) && (!found || r.prefix.Bits() > best.prefix.Bits()) {
			best, found = r, true
		}
	}
	return best, found
}
