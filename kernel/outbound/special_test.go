package outbound

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryRegistryRangeIsRefused is generated from the registry data:
// the first, a middle and the last address of every range are refused,
// and a neighbour just outside it is allowed when no other range holds it.
// A range embedding an IPv4 address is refused where the embedded address
// is refused, and allowed where it is public.
func TestEveryRegistryRangeIsRefused(t *testing.T) {
	t.Parallel()
	for _, r := range specialRanges {
		t.Run(r.prefix.String(), func(t *testing.T) {
			lo, hi := r.prefix.Addr(), lastOf(r.prefix)
			requireRefused(t, lo) // embeds 0.0.0.0, if it embeds
			requireRefused(t, hi) // embeds 255.255.255.255
			if r.embeds == 0 {
				requireRefused(t, middleOf(r.prefix))
			} else {
				requireRefused(t, embed(r, "127.0.0.1"))
				requireRefused(t, embed(r, "192.0.2.7"))
				requireAllowed(t, embed(r, "8.8.8.8"))
				requireAllowed(t, embed(r, "93.184.216.34"))
			}
			for _, n := range []netip.Addr{lo.Prev(), hi.Next()} {
				if n.IsValid() && !inAnyRange(n) {
					requireAllowed(t, n)
				}
			}
		})
	}
}

func requireRefused(t *testing.T, ip netip.Addr) {
	t.Helper()
	blocked, why := Blocked(ip)
	require.True(t, blocked, "%s must be refused", ip)
	require.NotEmpty(t, why, ip)
}

func requireAllowed(t *testing.T, ip netip.Addr) {
	t.Helper()
	blocked, why := Blocked(ip)
	require.False(t, blocked, "%s must be allowed, refused as %s", ip, why)
}

func inAnyRange(ip netip.Addr) bool {
	for _, r := range specialRanges {
		if r.prefix.Contains(ip) {
			return true
		}
	}
	return false
}

// lastOf is the prefix's last address: every host bit set.
func lastOf(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	ip, _ := netip.AddrFromSlice(b)
	return ip
}

// middleOf is the first address of the prefix's upper half (the address
// itself for a single address).
func middleOf(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	if p.Bits() < len(b)*8 {
		b[p.Bits()/8] |= 0x80 >> (p.Bits() % 8)
	}
	ip, _ := netip.AddrFromSlice(b)
	return ip
}

// embed writes an IPv4 address into the range's first address.
func embed(r specialRange, v4 string) netip.Addr {
	b := r.prefix.Addr().As16()
	a := netip.MustParseAddr(v4).As4()
	copy(b[r.embeds:], a[:])
	return netip.AddrFrom16(b)
}
