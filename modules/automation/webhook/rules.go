package webhook

import (
	"strings"
)

// MaxHeaders caps the extra headers of one webhook.
const MaxHeaders = 20

// refusedHeaders may not be set by tenants: hop-by-hop headers belong to
// the connection, the others are the platform's (framing, routing, body
// type, signatures), and letting a tenant set them would break or forge a
// delivery.
var refusedHeaders = map[string]string{
	"connection":          "a hop-by-hop header",
	"keep-alive":          "a hop-by-hop header",
	"proxy-authenticate":  "a hop-by-hop header",
	"proxy-authorization": "a hop-by-hop header",
	"proxy-connection":    "a hop-by-hop header",
	"te":                  "a hop-by-hop header",
	"trailer":             "a hop-by-hop header",
	"transfer-encoding":   "a hop-by-hop header",
	"upgrade":             "a hop-by-hop header",
	"host":                "set from the URL",
	"content-length":      "set from the body",
	"content-type":        "always application/json",
	"content-encoding":    "set by the platform",
	"expect":              "set by the platform",
}

// CheckHeader says why a webhook may not carry the header name: value, or
// "" when it may.
func CheckHeader(name, value string) string {
	lower := strings.ToLower(name)
	switch {
	case !validToken(name):
		return "is not a valid header name"
	case refusedHeaders[lower] != "":
		return "is " + refusedHeaders[lower]
	case strings.HasPrefix(lower, "x-platform-"):
		return "is reserved for the platform's signature and delivery headers"
	case strings.HasPrefix(lower, "webhook-"):
		return "is reserved for the Standard Webhooks headers"
	case len(value) > 4096:
		return "has a value longer than 4096 bytes"
	case !validValue(value):
		return "has a value with control characters"
	}
	return ""
}

// validToken: RFC 9110 token characters, at most 256.
func validToken(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// validValue refuses control characters (CR and LF would split headers).
func validValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
