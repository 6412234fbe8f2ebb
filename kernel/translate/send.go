package translate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"platform/kernel/outbound"
)

const (
	maxAnswer  = 8 << 20 // a translation of 128 KiB, with room to spare
	maxMessage = 300     // of a provider's error text in an error
)

// send posts one batch and returns its translations in order.
func (d *DeepL) send(ctx context.Context, r request) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	body, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("translate: encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("translate: %w", err)
	}
	req.Header.Set("Authorization", "DeepL-Auth-Key "+d.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, outbound.CallFailed(outbound.Dest(d.endpoint), d.timeout, err)
	}
	defer resp.Body.Close()
	return d.read(resp, len(r.Text))
}

// read decodes a successful answer of want translations, or maps a
// failed one to the package's errors.
func (d *DeepL) read(resp *http.Response, want int) ([]string, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, d.failure(resp)
	}
	var got response
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&got); err != nil {
		return nil, fmt.Errorf("translate: unreadable answer: %w", err)
	}
	if len(got.Translations) != want {
		return nil, errTranslations(want, len(got.Translations))
	}
	out := make([]string, want)
	for i, t := range got.Translations {
		out[i] = t.Text
	}
	return out, nil
}

// failure maps a non-200 answer: what a caller does about it differs
// (fix the key, buy quota, retry, give up).
func (d *DeepL) failure(resp *http.Response) error {
	msg := d.message(resp.Body)
	switch s := resp.StatusCode; {
	case s == http.StatusForbidden:
		return ErrUnauthorized
	case s == 456:
		return ErrQuota
	case s == http.StatusTooManyRequests || s >= 500:
		return &RetryableError{Service: "translate", Status: s, RetryAfter: outbound.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), Message: msg}
	}
	return &PermanentError{Service: "translate", Status: resp.StatusCode, Message: msg}
}

// message is the provider's explanation: DeepL's {"message": ...} or the
// body's text, bounded, and never the key, should a proxy echo it.
func (d *DeepL) message(body io.Reader) string {
	raw, _ := io.ReadAll(io.LimitReader(body, 4<<10))
	var m struct {
		Message string `json:"message"`
		Detail  string `json:"detail"`
	}
	text := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &m) == nil && m.Message != "" {
		text = strings.TrimSpace(m.Message + " " + m.Detail)
	}
	text = strings.ReplaceAll(text, d.key, "[key]")
	return outbound.Bound(text, maxMessage)
}
