package llm

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
	maxAnswer  = 4 << 20 // far above MaxMaxTokens of text
	maxMessage = 300     // of a provider's error text in an error
)

// send posts one request and reads its answer.
func (o *OpenAI) send(ctx context.Context, r chatRequest) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	body, err := json.Marshal(r)
	if err != nil {
		return Response{}, fmt.Errorf("llm: encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("llm: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+o.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := o.client.Do(req)
	if err != nil {
		return Response{}, outbound.CallFailed(outbound.Dest(o.endpoint), o.timeout, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Response{}, o.failure(resp)
	}
	return read(resp.Body)
}

// read decodes a successful answer, bounded: a gateway gone wrong must
// not fill the worker's memory.
func read(body io.Reader) (Response, error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxAnswer+1))
	switch {
	case err != nil:
		return Response{}, fmt.Errorf("llm: reading the answer: %w", err)
	case len(raw) > maxAnswer:
		return Response{}, fmt.Errorf("llm: the answer is larger than %d MiB; lower MaxTokens", maxAnswer>>20)
	}
	var got chatResponse
	if err := json.Unmarshal(raw, &got); err != nil {
		return Response{}, fmt.Errorf("llm: unreadable answer: %w", err)
	}
	return got.response()
}

// response is the first choice; several are only given when asked for.
func (c chatResponse) response() (Response, error) {
	if len(c.Choices) == 0 {
		return Response{}, fmt.Errorf("%w: no choices", ErrEmpty)
	}
	first := c.Choices[0]
	out := Response{
		Model:            c.Model,
		FinishReason:     first.FinishReason,
		PromptTokens:     c.Usage.PromptTokens,
		CompletionTokens: c.Usage.CompletionTokens,
	}
	if first.Message.Content != nil {
		out.Text = *first.Message.Content
	}
	switch {
	case first.FinishReason == "length":
		return out, fmt.Errorf("%w (%d tokens)", ErrTruncated, out.CompletionTokens)
	case strings.TrimSpace(out.Text) == "":
		return Response{}, fmt.Errorf("%w (finish_reason %q)", ErrEmpty, first.FinishReason)
	}
	return out, nil
}

// failure maps a non-200 answer: what a caller does about it differs
// (fix the key, pay, retry, change the request).
func (o *OpenAI) failure(resp *http.Response) error {
	code, msg := o.message(resp.Body)
	switch s := resp.StatusCode; {
	case s == http.StatusUnauthorized:
		return ErrUnauthorized // OpenAI's message quotes part of the key
	case s == http.StatusForbidden:
		return fmt.Errorf("%w: %s", ErrUnauthorized, msg)
	case s == http.StatusTooManyRequests && code == "insufficient_quota":
		return fmt.Errorf("%w: %s", ErrQuota, msg)
	case retryable(s):
		return &RetryableError{Service: "llm", Status: s, RetryAfter: outbound.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), Message: msg}
	}
	return &PermanentError{Service: "llm", Status: resp.StatusCode, Code: code, Message: msg}
}

// retryable: rate limits and server failures, and the timeouts and
// conflicts OpenAI's own clients retry too.
func retryable(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return true
	}
	return status >= 500
}

// message is the provider's error code and explanation: the OpenAI
// error body's or the body's text, bounded, and never the key, should a
// gateway echo it.
func (o *OpenAI) message(body io.Reader) (code, msg string) {
	raw, _ := io.ReadAll(io.LimitReader(body, 8<<10))
	var e errorBody
	msg = strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
		code, msg = e.code(), strings.TrimSpace(e.Error.Message)
	}
	hide := strings.NewReplacer(o.key, "[key]")
	return outbound.Bound(hide.Replace(code), 64), outbound.Bound(hide.Replace(msg), maxMessage)
}
