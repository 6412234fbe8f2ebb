package api_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/testenv"
)

// TestIdleConnectionsAreClosed: a kept-alive connection that sends nothing
// after its answer is closed by the server after PLATFORM_HTTP_IDLE_TIMEOUT,
// so idle clients cannot hold connections (and their memory) for ever.
func TestIdleConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{Configure: func(c *settings.Config) {
		c.HTTPIdleTimeout = time.Second
	}})
	u, err := url.Parse(p.URL)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	assert.False(t, res.Close, "the answer keeps the connection alive")

	begin := time.Now()
	require.NoError(t, conn.SetReadDeadline(begin.Add(30*time.Second)))
	_, err = r.ReadByte()
	require.ErrorIs(t, err, io.EOF, "the server closes the idle connection (not our 30 s deadline)")
	t.Logf("closed after %v", time.Since(begin))
}
