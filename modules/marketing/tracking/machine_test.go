package tracking

import (
	"testing"
	"time"
)

func TestMachine(t *testing.T) {
	sent := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	browser := "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15"
	cases := []struct {
		name string
		hit  Hit
		want bool
	}{
		{"person a minute later", Hit{Method: "GET", UserAgent: browser, SentAt: sent, At: sent.Add(time.Minute)}, false},
		{"send time unknown", Hit{Method: "GET", UserAgent: browser, At: sent}, false},
		{"scanner at delivery", Hit{Method: "GET", UserAgent: browser, SentAt: sent, At: sent.Add(2 * time.Second)}, true},
		{"head request", Hit{Method: "HEAD", UserAgent: browser, SentAt: sent, At: sent.Add(time.Hour)}, true},
		{"no user agent", Hit{Method: "GET", SentAt: sent, At: sent.Add(time.Hour)}, true},
		{"gmail image proxy", Hit{Method: "GET", UserAgent: "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)", SentAt: sent, At: sent.Add(time.Hour)}, true},
		{"bot", Hit{Method: "GET", UserAgent: "Mozilla/5.0 (compatible; bingbot/2.0)", SentAt: sent, At: sent.Add(time.Hour)}, true},
		{"script", Hit{Method: "GET", UserAgent: "python-requests/2.31", SentAt: sent, At: sent.Add(time.Hour)}, true},
	}
	for _, c := range cases {
		if got, why := Machine(c.hit); got != c.want {
			t.Errorf("%s: machine = %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}
