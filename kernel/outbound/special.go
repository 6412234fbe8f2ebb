package outbound

import "net/netip"

// specialRange is one entry of the IANA special-purpose address
// registries, or one of the few ranges refused besides them.
type specialRange struct {
	prefix netip.Prefix
	name   string
	rfc    string
	// embeds is the byte offset of an IPv4 address the range carries and a
	// translator reaches on the caller's behalf (0: none). Such a range is
	// judged by the address it embeds, not refused as a whole: a host with
	// IPv6 only (DNS64) reaches every IPv4 receiver through 64:ff9b::/96.
	embeds int
}

// specialRanges reproduces the IANA IPv4 Special-Purpose Address Registry
// and the IANA IPv6 Special-Purpose Address Registry (RFC 6890 and its
// updates) as last updated in 2025 (IPv6: 100:0:0:1::/64, RFC 9780;
// IPv4: 192.88.99.2/32, RFC 6751). They could not be downloaded where this
// was written: compare with iana.org/assignments/iana-ipv4-special-registry
// and iana-ipv6-special-registry when updating.
//
// Every entry is refused (one embedding an IPv4 address when the address
// it embeds is), including those the registry marks "globally reachable"
// (commented so): they are anycast services, relays and name servers no
// tenant needs to call, and refusing the blocks they sit in whole
// (192.0.0.0/24, 2001::/23) also refuses tomorrow's sub-registrations.
// The allow-list opens any of them.
var specialRanges = []specialRange{
	// IPv4 Special-Purpose Address Registry.
	entry("0.0.0.0/8", `"This network"`, "RFC 791"),
	entry("0.0.0.0/32", `"This host on this network"`, "RFC 1122"),
	entry("10.0.0.0/8", "Private-Use", "RFC 1918"),
	entry("100.64.0.0/10", "Shared Address Space", "RFC 6598"),
	entry("127.0.0.0/8", "Loopback", "RFC 1122"),
	entry("169.254.0.0/16", "Link Local", "RFC 3927"), // cloud metadata services
	entry("172.16.0.0/12", "Private-Use", "RFC 1918"),
	entry("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890"),
	entry("192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335"),
	entry("192.0.0.8/32", "IPv4 dummy address", "RFC 7600"),
	entry("192.0.0.9/32", "Port Control Protocol Anycast", "RFC 7723"),              // globally reachable
	entry("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", "RFC 8155"), // globally reachable
	entry("192.0.0.170/31", "NAT64/DNS64 Discovery", "RFC 8880, RFC 7050"),          // 192.0.0.170 and .171
	entry("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737"),
	entry("192.31.196.0/24", "AS112-v4", "RFC 7535"), // globally reachable
	entry("192.52.193.0/24", "AMT", "RFC 7450"),      // globally reachable
	entry("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526"),
	entry("192.88.99.2/32", "6a44-relay anycast address", "RFC 6751"), // globally reachable
	entry("192.168.0.0/16", "Private-Use", "RFC 1918"),
	entry("192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534"), // globally reachable
	entry("198.18.0.0/15", "Benchmarking", "RFC 2544"),
	entry("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737"),
	entry("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737"),
	entry("240.0.0.0/4", "Reserved", "RFC 1112"),
	entry("255.255.255.255/32", "Limited Broadcast", "RFC 8190, RFC 919"),

	// IPv6 Special-Purpose Address Registry.
	entry("::1/128", "Loopback Address", "RFC 4291"),
	entry("::/128", "Unspecified Address", "RFC 4291"),
	embedding("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291", 12),
	embedding("64:ff9b::/96", "IPv4-IPv6 Translat.", "RFC 6052", 12), // globally reachable
	entry("64:ff9b:1::/48", "IPv4-IPv6 Translat.", "RFC 8215"),
	entry("100::/64", "Discard-Only Address Block", "RFC 6666"),
	entry("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780"),
	entry("2001::/23", "IETF Protocol Assignments", "RFC 2928"),
	// Teredo is refused whole (2001::/23 holds it): the IPv4 client address
	// it embeds is obfuscated, and Teredo relays are out of service.
	entry("2001::/32", "TEREDO", "RFC 4380, RFC 8190"),
	entry("2001:1::1/128", "Port Control Protocol Anycast", "RFC 7723"),                        // globally reachable
	entry("2001:1::2/128", "Traversal Using Relays around NAT Anycast", "RFC 8155"),            // globally reachable
	entry("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast Address", "RFC 9665"), // globally reachable
	entry("2001:2::/48", "Benchmarking", "RFC 5180"),
	entry("2001:3::/32", "AMT", "RFC 7450"),          // globally reachable
	entry("2001:4:112::/48", "AS112-v6", "RFC 7535"), // globally reachable
	entry("2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843"),
	entry("2001:20::/28", "ORCHIDv2", "RFC 7343"),                                           // globally reachable
	entry("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374"), // globally reachable
	entry("2001:db8::/32", "Documentation", "RFC 3849"),
	embedding("2002::/16", "6to4", "RFC 3056", 2),
	entry("2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534"), // globally reachable
	entry("3fff::/20", "Documentation", "RFC 9637"),
	entry("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602"),
	entry("fc00::/7", "Unique-Local", "RFC 4193, RFC 8190"),
	entry("fe80::/10", "Link-Local Unicast", "RFC 4291"),

	// Not in the registries, refused besides them.
	entry("224.0.0.0/4", "Multicast", "RFC 5771"),
	entry("ff00::/8", "Multicast", "RFC 4291"),
	entry("fec0::/10", "Site-Local (deprecated)", "RFC 3879"),
	entry("::/96", "IPv4-compatible (deprecated)", "RFC 4291"),
}

func entry(prefix, name, rfc string) specialRange {
	return specialRange{prefix: netip.MustParsePrefix(prefix), name: name, rfc: rfc}
}

func embedding(prefix, name, rfc string, offset int) specialRange {
	r := entry(prefix, name, rfc)
	r.embeds = offset
	return r
}
