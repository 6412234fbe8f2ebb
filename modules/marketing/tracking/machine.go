package tracking

import (
	"net/http"
	"strings"
	"time"
)

// ScanWindow is how soon after sending a hit is taken for a mail-security
// scanner's: they fetch every link and image of a mail as it is delivered,
// well before a person can have read it.
const ScanWindow = 10 * time.Second

// Hit is one request of a pixel or a click link, as the rules see it.
type Hit struct {
	Method    string
	UserAgent string
	SentAt    time.Time // when the mail was sent; zero when unknown
	At        time.Time
}

// machineAgents are fragments (lower case) of the user agents of bots,
// link scanners, preview fetchers and image proxies.
var machineAgents = []string{
	"bot", "crawler", "spider", "slurp", "preview", "scanner", "headless", "phantomjs",
	"curl/", "wget/", "python-", "go-http-client", "java/", "okhttp", "libwww", "httpclient", "axios/", "node-fetch",
	"facebookexternalhit", "barracuda", "proofpoint", "mimecast", "forcepoint", "trendmicro", "symantec",
	"fortinet", "sophos", "cisco", "ironport", "safelinks", "googleimageproxy", "ggpht.com", "yahoomailproxy",
}

// Machine reports whether h was made by a machine rather than a person,
// and by which rule (docs/tracking.md): a HEAD request, no user agent, a
// known bot, scanner or image proxy agent, or a hit within ScanWindow of
// the send.
func Machine(h Hit) (bool, string) {
	ua := strings.ToLower(strings.TrimSpace(h.UserAgent))
	switch {
	case h.Method == http.MethodHead:
		return true, "head request"
	case ua == "":
		return true, "no user agent"
	case !h.SentAt.IsZero() && h.At.Sub(h.SentAt) < ScanWindow:
		return true, "within seconds of delivery"
	}
	for _, frag := range machineAgents {
		if strings.Contains(ua, frag) {
			return true, "machine user agent " + frag
		}
	}
	return false, ""
}
