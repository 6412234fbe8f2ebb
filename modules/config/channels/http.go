package channels

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"platform/kernel/notify"
	"platform/kernel/outbound"
)

// maxAnswer is how much of a provider's answer is read.
const maxAnswer = 64 << 10

// call is one HTTP request of a kind.
type call struct {
	kind   string
	method string
	url    string
	body   []byte
	ctype  string
	header http.Header
	// check reads a 2xx answer's body and says why it is a failure
	// anyway (Telegram's {"ok": false}); nil accepts every 2xx.
	check func(body []byte) error
}

func jsonCall(kind, rawURL string, v any) (call, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return call{}, &outbound.PermanentError{Service: kind, Message: "encode the request: " + err.Error()}
	}
	return call{kind: kind, method: http.MethodPost, url: rawURL, body: b, ctype: "application/json"}, nil
}

// do sends c. The error names no URL: a chat webhook's URL is its secret.
func (e *Env) do(ctx context.Context, c call) error {
	if e.HTTP == nil {
		return &outbound.PermanentError{Service: c.kind, Message: "outbound calls are not configured in this process"}
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, c.method, c.url, bytes.NewReader(c.body))
	if err != nil {
		return &outbound.PermanentError{Service: c.kind, Message: "the channel's URL is not valid"}
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", c.ctype)
	req.Header.Set("User-Agent", "platform-notify")
	resp, err := e.HTTP.Do(req)
	if err != nil {
		return networkError(c, e.timeout(), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if c.check != nil {
			return c.check(body)
		}
		return nil
	}
	return statusError(c.kind, resp, body)
}

// networkError strips the URL off err (url.Error names it) and keeps
// the destination as host:port, which is no secret.
func networkError(c call, timeout time.Duration, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	wrapped := fmt.Errorf("%s: %w", c.kind, err)
	var refused *outbound.RefusedError
	if errors.As(err, &refused) {
		return &permanent{outbound.CallFailed(outbound.Dest(c.url), timeout, wrapped)}
	}
	return outbound.CallFailed(outbound.Dest(c.url), timeout, wrapped)
}

// statusError classifies a non-2xx answer: 408, 429 and 5xx may pass
// later, anything else is the request's fault.
func statusError(kind string, resp *http.Response, body []byte) error {
	msg := outbound.Bound(strings.TrimSpace(strings.ToValidUTF8(string(body), "")), 300)
	s := resp.StatusCode
	if s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500 {
		return &outbound.RetryableError{Service: kind, Status: s, Message: msg,
			RetryAfter: outbound.RetryAfter(resp.Header.Get("Retry-After"), time.Now())}
	}
	return &outbound.PermanentError{Service: kind, Status: s, Message: msg}
}

// permanent marks an error a retry cannot fix.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }
func (p *permanent) Unwrap() error { return p.err }

// IsPermanent says whether a retry of the send cannot succeed: the
// provider rejected the request, the destination is refused, a setting
// is wrong.
func IsPermanent(err error) bool {
	var pe *outbound.PermanentError
	var p *permanent
	return errors.As(err, &pe) || errors.As(err, &p) || notify.IsPermanent(err)
}

// RetryAfter is the wait a provider asked for before a retry; 0 if none.
func RetryAfter(err error) time.Duration {
	var re *outbound.RetryableError
	if errors.As(err, &re) {
		return re.RetryAfter
	}
	return 0
}

// Cause is the text of a send's error a tenant may read.
func Cause(err error) string { return outbound.Cause(err) }

// chatText is a message as one text: the subject on its own line.
func chatText(m Message) string {
	if m.Subject == "" {
		return m.Body
	}
	if m.Body == "" {
		return m.Subject
	}
	return m.Subject + "\n" + m.Body
}
