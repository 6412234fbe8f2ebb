package llm_test

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

	"platform/kernel/llm"
	"platform/kernel/llm/llmtest"
	"platform/kernel/outbound"
)

func TestCompleteMapsErrors(t *testing.T) {
	soon := time.Now().Add(time.Minute).UTC().Format(http.TimeFormat)
	for name, c := range map[string]struct {
		reply llmtest.Reply
		check func(t *testing.T, err error)
	}{
		"403": {llmtest.Reply{Status: 403, Message: "Country not supported"}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, llm.ErrUnauthorized)
			assert.ErrorContains(t, err, "Country not supported")
		}},
		"quota": {llmtest.Reply{Status: 429, Code: "insufficient_quota", Message: "You exceeded your current quota"}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, llm.ErrQuota)
		}},
		"rate limit":      {llmtest.Reply{Status: 429, Code: "rate_limit_exceeded", RetryAfter: "7"}, retryable(429, 7*time.Second)},
		"rate limit date": {llmtest.Reply{Status: 429, RetryAfter: soon}, retryableAbout(429, time.Minute)},
		"500":             {llmtest.Reply{Status: 500}, retryable(500, 0)},
		"503":             {llmtest.Reply{Status: 503, RetryAfter: "2"}, retryable(503, 2*time.Second)},
		"context too long": {llmtest.Reply{Status: 400, Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens."}, func(t *testing.T, err error) {
			var p *llm.PermanentError
			require.ErrorAs(t, err, &p)
			assert.Equal(t, llm.PermanentError{Service: "llm", Status: 400, Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens."}, *p)
		}},
		"no model": {llmtest.Reply{Status: 404, Code: "model_not_found"}, func(t *testing.T, err error) {
			var p *llm.PermanentError
			require.ErrorAs(t, err, &p)
			assert.Equal(t, "llm: provider rejected the request (404 model_not_found): Not Found", err.Error())
		}},
		"truncated": {llmtest.Reply{Content: `{"blocks": [`, FinishReason: "length"}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, llm.ErrTruncated)
		}},
		"no choices": {llmtest.Reply{NoChoices: true}, func(t *testing.T, err error) { assert.ErrorIs(t, err, llm.ErrEmpty) }},
		"filtered": {llmtest.Reply{FinishReason: "content_filter"}, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, llm.ErrEmpty)
			assert.ErrorContains(t, err, "content_filter")
		}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Queue(c.reply)
			_, err := newOpenAI(t, srv, 0).Complete(context.Background(), ask("x"))
			require.Error(t, err)
			c.check(t, err)
			assert.NotContains(t, err.Error(), srv.Key)
			assert.Len(t, srv.Requests(), 1)
		})
	}
}

func retryable(status int, after time.Duration) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var r *llm.RetryableError
		require.ErrorAs(t, err, &r)
		assert.Equal(t, status, r.Status)
		assert.Equal(t, after, r.RetryAfter)
	}
}

// retryableAbout allows for the second an HTTP date loses.
func retryableAbout(status int, after time.Duration) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var r *llm.RetryableError
		require.ErrorAs(t, err, &r)
		assert.Equal(t, status, r.Status)
		assert.InDelta(t, after, r.RetryAfter, float64(2*time.Second))
	}
}

// A truncated answer still reports what it cost.
func TestCompleteTruncatedKeepsUsage(t *testing.T) {
	srv := llmtest.New(t)
	srv.Queue(llmtest.Reply{Content: `{"blocks": [ one two`, FinishReason: "length"})
	got, err := newOpenAI(t, srv, 0).Complete(context.Background(), ask("x"))
	require.ErrorIs(t, err, llm.ErrTruncated)
	assert.Equal(t, 4, got.CompletionTokens)
	assert.Equal(t, "length", got.FinishReason)
}

// OpenAI's 401 message quotes the ends of the key it refused: none of
// it reaches the error.
func TestCompleteWrongKeyIsUnauthorized(t *testing.T) {
	srv := llmtest.New(t)
	o, err := llm.New(llm.Config{URL: srv.URL(), Key: "sk-wrong-key-1234", Model: "m"}, guarded(t))
	require.NoError(t, err)
	_, err = o.Complete(context.Background(), ask("x"))
	assert.ErrorIs(t, err, llm.ErrUnauthorized)
	assert.NotContains(t, err.Error(), "1234")
	assert.Len(t, srv.Requests(), 1)
}

// A gateway that echoes the key in a long message: the error keeps 300
// characters and never the key.
func TestCompleteBoundsMessageAndHidesKey(t *testing.T) {
	for _, status := range []int{400, 403, 429, 502} {
		echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"message":"bad ` + r.Header.Get("Authorization") + strings.Repeat(" blah", 200) + `","code":"` + r.Header.Get("Authorization") + `"}}`))
		}))
		t.Cleanup(echo.Close)
		o, err := llm.New(llm.Config{URL: echo.URL, Key: "secret-key-xyz", Model: "m"}, guarded(t))
		require.NoError(t, err)
		_, err = o.Complete(context.Background(), ask("x"))
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "secret-key-xyz", "%d", status)
		assert.Contains(t, err.Error(), "bad Bearer [key]", "%d", status)
		assert.Less(t, len(err.Error()), 500, "%d", status)
	}
}

// An error body that is no OpenAI error body is quoted as text.
func TestCompleteQuotesPlainErrors(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream model not loaded", http.StatusUnprocessableEntity)
	}))
	t.Cleanup(plain.Close)
	o, err := llm.New(llm.Config{URL: plain.URL, Key: "k", Model: "m"}, guarded(t))
	require.NoError(t, err)
	_, err = o.Complete(context.Background(), ask("x"))
	var p *llm.PermanentError
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "upstream model not loaded", p.Message)
}

func TestCompleteBoundsTheAnswer(t *testing.T) {
	srv := llmtest.New(t)
	srv.Queue(llmtest.Reply{Content: strings.Repeat("x", 5<<20)})
	_, err := newOpenAI(t, srv, 0).Complete(context.Background(), ask("x"))
	assert.ErrorContains(t, err, "larger than 4 MiB")
}

func TestCompleteHonoursContext(t *testing.T) {
	srv := llmtest.New(t)
	srv.Queue(llmtest.Reply{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newOpenAI(t, srv, 0).Complete(ctx, ask("x"))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)

	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	_, err = newOpenAI(t, srv, 0).Complete(cancelled, ask("x"))
	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, srv.Requests(), 1, "a cancelled call sends nothing")
}

func TestCompleteTimeout(t *testing.T) {
	srv := llmtest.New(t)
	srv.Queue(llmtest.Reply{Hang: true})
	_, err := newOpenAI(t, srv, 100*time.Millisecond).Complete(context.Background(), ask("x"))
	require.Error(t, err)
	assert.Equal(t, "timed out after 0.1 s", outbound.Cause(err))
}

// Without the allow-list the guard refuses the loopback server: the
// provider really calls through the client it is given.
func TestCompleteCallsThroughTheGuard(t *testing.T) {
	srv := llmtest.New(t)
	g, err := outbound.New(nil)
	require.NoError(t, err)
	o, err := llm.New(llm.Config{URL: srv.URL(), Key: srv.Key, Model: "m"}, g.Client(time.Second))
	require.NoError(t, err)
	_, err = o.Complete(context.Background(), ask("x"))
	var refused *outbound.RefusedError
	assert.True(t, errors.As(err, &refused), "%v", err)
	assert.Empty(t, srv.Requests())
}
