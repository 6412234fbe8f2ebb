package api

import (
	"net"
	"net/http"
	"strings"
)

// ClientAddress is the caller's IP. X-Forwarded-For is believed only from
// a loopback or private peer (the gateway in front of the replicas), and
// then only its last hop, which that proxy appended itself: a client
// cannot pick its own anonymous bucket.
func ClientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil || !(ip.IsLoopback() || ip.IsPrivate()) {
		return host
	}
	xff := r.Header.Get("X-Forwarded-For")
	if xff == "" {
		return host
	}
	parts := strings.Split(xff, ",")
	if last := strings.TrimSpace(parts[len(parts)-1]); net.ParseIP(last) != nil {
		return last
	}
	return host
}
