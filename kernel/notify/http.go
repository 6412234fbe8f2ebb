package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"platform/kernel/outbound"
)

// DefaultHTTPTimeout bounds one request of an HTTPSMS or HTTPPush whose
// Timeout is zero.
const DefaultHTTPTimeout = 10 * time.Second

// maxErrorBody is how much of a response body is read for an error message.
const maxErrorBody = 4 << 10

// HTTPSMS sends the sms channel: one POST of {"to", "body"} per recipient
// (see the package documentation for the wire format).
type HTTPSMS struct {
	URL     string
	Token   string        // sent as "Authorization: Bearer <Token>" when not empty
	Timeout time.Duration // of one request; zero: DefaultHTTPTimeout
	Client  *http.Client  // nil: a client that does not follow redirects
}

// HTTPPush sends the push channel: one POST of {"to", "title", "body",
// "data"} per device token (see the package documentation).
type HTTPPush struct {
	URL     string
	Token   string
	Timeout time.Duration
	Client  *http.Client
}

type smsRequest struct {
	To   string `json:"to"`
	Body string `json:"body"`
}

type pushRequest struct {
	To    string         `json:"to"`
	Title string         `json:"title"`
	Body  string         `json:"body"`
	Data  map[string]any `json:"data,omitempty"`
}

// Send posts m.Body to each number of m.To in turn and stops at the first
// failure.
func (s *HTTPSMS) Send(ctx context.Context, m Message) error {
	if err := ValidateRecipients(ChannelSMS, m.To); err != nil {
		return err
	}
	p := poster{channel: ChannelSMS, url: s.URL, token: s.Token, timeout: s.Timeout, client: s.Client}
	for _, to := range m.To {
		if err := p.post(ctx, smsRequest{To: to, Body: m.Body}); err != nil {
			return err
		}
	}
	return nil
}

// Send posts the notification to each device token of m.To in turn and
// stops at the first failure.
func (s *HTTPPush) Send(ctx context.Context, m Message) error {
	if err := ValidateRecipients(ChannelPush, m.To); err != nil {
		return err
	}
	p := poster{channel: ChannelPush, url: s.URL, token: s.Token, timeout: s.Timeout, client: s.Client}
	for _, to := range m.To {
		if err := p.post(ctx, pushRequest{To: to, Title: m.Subject, Body: m.Body, Data: m.Data}); err != nil {
			return err
		}
	}
	return nil
}

// StatusError is a non-2xx answer of an SMS or push endpoint.
type StatusError struct {
	Channel    string
	StatusCode int
	Body       string        // the start of the response body
	RetryAfter time.Duration // from a Retry-After header in seconds; 0 if absent
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("notify: %s: provider answered %d %s", e.Channel, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Transient says whether a retry may succeed: 408, 429 and 5xx.
func (e *StatusError) Transient() bool {
	return e.StatusCode == http.StatusRequestTimeout || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

var defaultClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

type poster struct {
	channel, url, token string
	timeout             time.Duration
	client              *http.Client
}

func (p poster) post(ctx context.Context, v any) error {
	body, err := json.Marshal(v)
	if err != nil { // only Data can fail: a value JSON cannot hold
		return Permanent(fmt.Errorf("notify: %s: encode request: %w", p.channel, err))
	}
	timeout := p.timeout
	if timeout <= 0 {
		timeout = DefaultHTTPTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return Permanent(fmt.Errorf("notify: %s: %w", p.channel, err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "platform-notify")
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	client := p.client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s: %w", timeout, err)
		}
		// The tenant never saw the provider's address: the cause names
		// the channel's provider instead.
		return outbound.CallFailed("the "+p.channel+" provider", timeout, fmt.Errorf("notify: %s: %w", p.channel, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
		return nil
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	se := &StatusError{
		Channel:    p.channel,
		StatusCode: resp.StatusCode,
		Body:       strings.TrimSpace(strings.ToValidUTF8(string(snippet), "")),
	}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		se.RetryAfter = time.Duration(secs) * time.Second
	}
	if se.Transient() {
		return se
	}
	return Permanent(se)
}
