package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/api"
)

func TestClientAddressTrustsOnlyLocalProxies(t *testing.T) {
	r := &http.Request{RemoteAddr: "203.0.113.5:4000", Header: http.Header{"X-Forwarded-For": {"1.2.3.4"}}}
	require.Equal(t, "203.0.113.5", api.ClientAddress(r), "a public peer cannot choose its address")
	r = &http.Request{RemoteAddr: "10.0.0.2:4000", Header: http.Header{"X-Forwarded-For": {"1.2.3.4, 198.51.100.9"}}}
	require.Equal(t, "198.51.100.9", api.ClientAddress(r), "the gateway's own hop")
	r = &http.Request{RemoteAddr: "127.0.0.1:4000", Header: http.Header{}}
	require.Equal(t, "127.0.0.1", api.ClientAddress(r))
}
