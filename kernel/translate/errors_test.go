package translate_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
	"platform/kernel/translate"
	"platform/kernel/translate/translatetest"
)

func TestDeepLMapsErrors(t *testing.T) {
	for _, c := range []struct {
		status     int
		retryAfter string
		check      func(t *testing.T, err error)
	}{
		{403, "", func(t *testing.T, err error) { assert.ErrorIs(t, err, translate.ErrUnauthorized) }},
		{456, "", func(t *testing.T, err error) { assert.ErrorIs(t, err, translate.ErrQuota) }},
		{429, "7", retryable(429, 7*time.Second)},
		{500, "", retryable(500, 0)},
		{503, "2", retryable(503, 2*time.Second)},
		{400, "", func(t *testing.T, err error) {
			var p *translate.PermanentError
			require.ErrorAs(t, err, &p)
			assert.Equal(t, 400, p.Status)
			assert.Equal(t, "Bad Request", p.Message)
		}},
	} {
		t.Run(http.StatusText(c.status), func(t *testing.T) {
			srv := translatetest.New(t)
			srv.Fail(c.status, 1)
			srv.RetryAfter(c.retryAfter)
			_, err := newDeepL(t, srv, 0).Translate(context.Background(), []string{"hi"}, "", "de", translate.FormatText)
			require.Error(t, err)
			c.check(t, err)
			assert.NotContains(t, err.Error(), srv.Key)
		})
	}
}

func retryable(status int, after time.Duration) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var r *translate.RetryableError
		require.ErrorAs(t, err, &r)
		assert.Equal(t, status, r.Status)
		assert.Equal(t, after, r.RetryAfter)
	}
}

func TestDeepLWrongKeyIsUnauthorized(t *testing.T) {
	srv := translatetest.New(t)
	d, err := translate.New(translate.Config{BaseURL: srv.URL(), Key: "wrong-key-123"}, guarded(t))
	require.NoError(t, err)
	_, err = d.Translate(context.Background(), []string{"hi"}, "", "de", translate.FormatText)
	assert.ErrorIs(t, err, translate.ErrUnauthorized)
	assert.NotContains(t, err.Error(), "wrong-key-123")
}

// A provider (or a proxy before it) that echoes the key in a long
// message: the error keeps 300 characters and never the key.
func TestDeepLBoundsMessageAndHidesKey(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"message":"bad ` + r.Header.Get("Authorization") + strings.Repeat(" blah", 200) + `"}`))
	}))
	t.Cleanup(echo.Close)
	d, err := translate.New(translate.Config{BaseURL: echo.URL, Key: "secret-key-xyz"}, guarded(t))
	require.NoError(t, err)
	_, err = d.Translate(context.Background(), []string{"hi"}, "", "de", translate.FormatText)
	var p *translate.PermanentError
	require.ErrorAs(t, err, &p)
	assert.NotContains(t, err.Error(), "secret-key-xyz")
	assert.Contains(t, p.Message, "bad DeepL-Auth-Key [key]")
	assert.LessOrEqual(t, len(p.Message), 300+len("…"))
}

func TestDeepLHonoursContext(t *testing.T) {
	srv := translatetest.New(t)
	srv.Fail(translatetest.Hang, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newDeepL(t, srv, 0).Translate(ctx, []string{"hi"}, "", "de", translate.FormatText)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)

	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	_, err = newDeepL(t, srv, 0).Translate(cancelled, []string{"hi"}, "", "de", translate.FormatText)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestDeepLTimeout(t *testing.T) {
	srv := translatetest.New(t)
	srv.Fail(translatetest.Hang, 1)
	_, err := newDeepL(t, srv, 100*time.Millisecond).Translate(context.Background(), []string{"hi"}, "", "de", translate.FormatText)
	require.Error(t, err)
	assert.Equal(t, "timed out after 0.1 s", outbound.Cause(err))
}

// Without the allow-list the guard refuses the loopback server: the
// provider really calls through the client it is given.
func TestDeepLCallsThroughTheGuard(t *testing.T) {
	srv := translatetest.New(t)
	g, err := outbound.New(nil)
	require.NoError(t, err)
	d, err := translate.New(translate.Config{BaseURL: srv.URL(), Key: srv.Key}, g.Client(time.Second))
	require.NoError(t, err)
	_, err = d.Translate(context.Background(), []string{"hi"}, "", "de", translate.FormatText)
	var refused *outbound.RefusedError
	assert.True(t, errors.As(err, &refused), "%v", err)
	assert.Empty(t, srv.Requests())
}

func TestNewValidates(t *testing.T) {
	client := &http.Client{}
	for _, cfg := range []translate.Config{
		{BaseURL: "", Key: "k"},
		{BaseURL: "ftp://api.deepl.com", Key: "k"},
		{BaseURL: "https://", Key: "k"},
		{BaseURL: "https://api.deepl.com", Key: " "},
	} {
		_, err := translate.New(cfg, client)
		assert.Error(t, err, "%+v", cfg)
	}
	_, err := translate.New(translate.Config{BaseURL: "https://api.deepl.com", Key: "k"}, nil)
	assert.Error(t, err)
	_, err = translate.New(translate.Config{BaseURL: "http://localhost:8080/", Key: "k"}, client)
	assert.NoError(t, err)
}
