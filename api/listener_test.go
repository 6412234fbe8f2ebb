package api

import (
	"platform/kernel/resource"

	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveEnvelopes serves handler over a real TCP listener wrapped by
// EnvelopeListener, with net/http's default header limit (1 MiB).
func serveEnvelopes(t *testing.T, handler http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(EnvelopeListener(ln, slog.New(slog.DiscardHandler))) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// rawRequest writes request as is and reads the answer.
func rawRequest(t *testing.T, addr, request string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	go func() { _, _ = io.WriteString(c, request) }() // the server may answer before it has read everything
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, body
}

// TestNetHTTPRefusalsAreEnvelopes: what net/http answers itself, before
// any handler, is the JSON error envelope with a debug id; a handler's
// own answers pass untouched, plain text and Connection: close included.
func TestNetHTTPRefusalsAreEnvelopes(t *testing.T) {
	addr := serveEnvelopes(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "the handler's own text")
	}))
	hugeURL := "/crm/consumers?filter=" + strings.Repeat("%7B%22email%22%3A1%7D%2C", 60_000)
	cases := []struct {
		name, request string
		status        int
		code, text    string
	}{
		{"a URL beyond the header limit", "GET " + hugeURL + " HTTP/1.1\r\nHost: x\r\n\r\n", 431, CodeTooLarge, "larger than the server accepts"},
		{"headers beyond the limit", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", 431, CodeTooLarge, "larger than the server accepts"},
		{"no Host header", "GET / HTTP/1.1\r\n\r\n", 400, resource.CodeMalformed, "missing required Host header"},
		{"a malformed request line", "GET\r\n\r\n", 400, resource.CodeMalformed, "could not be read"},
		{"an unknown transfer coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, resource.CodeMalformed, "Unsupported transfer encoding"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, body := rawRequest(t, addr, c.request)
			require.Equal(t, c.status, res.StatusCode, "%s", body)
			assert.Equal(t, "application/json; charset=utf-8", res.Header.Get("Content-Type"))
			var env struct {
				Payload any  `json:"payload"`
				Meta    Meta `json:"meta"`
			}
			require.NoError(t, json.Unmarshal(body, &env), "%s", body)
			assert.Nil(t, env.Payload)
			assert.True(t, env.Meta.Error)
			assert.Equal(t, "error", env.Meta.Status)
			assert.Equal(t, c.status, env.Meta.Code)
			require.Len(t, env.Meta.Errors, 1)
			assert.Equal(t, c.code, env.Meta.Errors[0].Code)
			assert.Contains(t, env.Meta.Errors[0].Message, c.text)
			assert.Len(t, env.Meta.DebugID, 24)
			assert.Equal(t, env.Meta.DebugID, res.Header.Get("X-Debug-Id"))
			assert.NotNil(t, env.Meta.Links)
		})
	}
	t.Run("a handler's plain-text answer", func(t *testing.T) {
		res, body := rawRequest(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		assert.Equal(t, 400, res.StatusCode)
		assert.Equal(t, "text/plain; charset=utf-8", res.Header.Get("Content-Type"))
		assert.Equal(t, "the handler's own text", string(body))
	})
}
