package console

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
)

// TestConsoleAddresses: the console answers at its configured address and
// sends the browser there from the other one (path and query kept).
func TestConsoleAddresses(t *testing.T) {
	serve := func(consoleURL, host, path string) *httptest.ResponseRecorder {
		cfg := &settings.Config{GatewayURL: "http://gw.example", LoginURL: "http://gw.example", PlatformDomain: "gw.example"}
		cfg.Console.URL = consoleURL
		c, err := New(Deps{Config: cfg})
		require.NoError(t, err)
		r := httptest.NewRequest(http.MethodGet, "http://"+host+path, nil)
		w := httptest.NewRecorder()
		c.ServeHTTP(w, c.routeHost(r))
		return w
	}
	// The console on its own host.
	own := "http://console.gw.example"
	w := serve(own, "console.gw.example", "/static/console.css")
	require.Equal(t, 200, w.Code)
	require.Equal(t, "text/css; charset=utf-8", w.Header().Get("Content-Type"))
	w = serve(own, "gw.example", "/console/ops?x=1")
	require.Equal(t, 302, w.Code)
	require.Equal(t, own+"/ops?x=1", w.Header().Get("Location"))
	// The console on the gateway (the default): any Host of the gateway
	// path is served (a proxy may rewrite it); console.<domain> redirects.
	w = serve("", "internal:8080", "/console/static/console.css")
	require.Equal(t, 200, w.Code)
	w = serve("", "console.gw.example", "/ops")
	require.Equal(t, 302, w.Code)
	require.Equal(t, "http://gw.example/console/ops", w.Header().Get("Location"))
	require.Equal(t, "DENY", w.Header().Get("X-Frame-Options"))
}
