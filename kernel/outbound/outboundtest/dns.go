// Package outboundtest holds test helpers for code that calls out through
// the outbound guard.
package outboundtest

import (
	"context"
	"net"
	"testing"
)

// NXDomainResolver is a resolver whose every query a local DNS server on
// 127.0.0.1 answers with NXDOMAIN ("no such host"), so a test gets a real
// resolver error, which names the configured name server as Go's resolver
// reports it, without depending on the network.
func NXDomainResolver(t testing.TB) *net.Resolver {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("outboundtest: listen for DNS: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	go answerNXDomain(conn)
	server := conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", server)
	}}
}

// answerNXDomain answers each query with its header and question and the
// NXDOMAIN response code, until conn is closed.
func answerNXDomain(conn net.PacketConn) {
	buf := make([]byte, 1500)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if reply := nxDomain(buf[:n]); reply != nil {
			_, _ = conn.WriteTo(reply, from)
		}
	}
}

// nxDomain is the NXDOMAIN reply to query (RFC 1035 §4.1): the query's
// id and question, QR and RA set, RCODE 3, no records; nil when query is
// not one question.
func nxDomain(query []byte) []byte {
	const header = 12
	end := header
	for end < len(query) && query[end] != 0 { // QNAME: length-prefixed labels up to a zero
		end += int(query[end]) + 1
	}
	end += 1 + 4 // the zero, QTYPE and QCLASS
	if len(query) < end || query[4] != 0 || query[5] != 1 {
		return nil
	}
	reply := append([]byte{}, query[:end]...)
	reply[2] = 0x80 | query[2]&0x79 // QR, the opcode and RD of the query
	reply[3] = 0x80 | 3             // RA, RCODE NXDOMAIN
	clear(reply[6:header])          // no answer, authority or additional records
	return reply
}
