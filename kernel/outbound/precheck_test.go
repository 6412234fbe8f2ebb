package outbound

import (
	"errors"
	"strings"
	"testing"
)

// TestRefusalAtSaveTime: the URLs whose calls the guard will refuse for
// sure (IP literals, localhost names) are told at save time, with the
// same reason the call would fail with; the allow-list opens them; a host
// name is left to the call, which resolves it then.
func TestRefusalAtSaveTime(t *testing.T) {
	strict, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := New([]string{"127.0.0.0/8", "::1/128"}) // what platform dev adds
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url         string
		strict, dev string // a text of the refusal; "" for none
	}{
		{"http://127.0.0.1:9000/hook", "PLATFORM_OUTBOUND_ALLOW", ""},
		{"http://localhost:9000/hook", "PLATFORM_OUTBOUND_ALLOW", ""},
		{"http://api.localhost/hook", "PLATFORM_OUTBOUND_ALLOW", ""},
		{"http://[::1]:9000/hook", "PLATFORM_OUTBOUND_ALLOW", ""},
		{"https://10.1.2.3/hook", "Private-Use", "Private-Use"},
		{"http://169.254.169.254/latest/meta-data", "Link Local", "Link Local"},
		{"https://hooks.example.com/x", "", ""}, // resolved at call time
		{"https://93.184.215.14/x", "", ""},
		{"not a url", "", ""},
	} {
		for _, g := range []struct {
			name  string
			guard *Guard
			want  string
		}{{"strict", strict, tc.strict}, {"dev", dev, tc.dev}} {
			err := g.guard.Refusal(tc.url)
			var refused *RefusedError
			switch {
			case g.want == "" && err != nil:
				t.Errorf("%s %s: refused: %v", g.name, tc.url, err)
			case g.want != "" && !errors.As(err, &refused):
				t.Errorf("%s %s: err = %v, want a refusal", g.name, tc.url, err)
			case g.want != "" && !strings.Contains(Cause(err), g.want):
				t.Errorf("%s %s: cause %q lacks %q", g.name, tc.url, Cause(err), g.want)
			}
		}
	}
	hostPort, _ := New([]string{"127.0.0.1:9000"})
	if err := hostPort.Refusal("http://127.0.0.1:9000/x"); err != nil {
		t.Errorf("an allowed host:port: %v", err)
	}
	if err := hostPort.Refusal("http://127.0.0.1:9001/x"); err == nil {
		t.Error("another port of an allowed host:port is refused")
	}
}
