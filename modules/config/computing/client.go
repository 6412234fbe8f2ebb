package computing

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

	"platform/kernel/outbound"
)

// Protocol paths below the provider's base URL (docs/config-computing.md):
// POST /v1/machines/{id}/{action} asks for a move, GET /v1/machines/{id}
// reads the machine.
const machinesPath = "/v1/machines/"

// maxAnswer bounds a provider's answer: a machine is a few fields.
const maxAnswer = 64 << 10

// Client speaks the compute provider protocol over HTTP.
type Client struct {
	base    string
	token   string
	timeout time.Duration
	http    *http.Client
}

var _ Provider = (*Client)(nil)

// NewClient returns a client of the provider at base (an http(s) URL)
// calling through hc, the platform's guarded client; token, when set, is
// sent as a bearer token.
func NewClient(base, token string, timeout time.Duration, hc *http.Client) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("computing: provider URL %q is no http(s) URL with a host", base)
	}
	if hc == nil {
		return nil, errors.New("computing: no HTTP client given")
	}
	return &Client{base: strings.TrimRight(base, "/"), token: token, timeout: timeout, http: hc}, nil
}

// moveBody is the body of a move request.
type moveBody struct {
	Type     string `json:"type"`
	Customer string `json:"customer"`
}

// Request implements Provider.
func (c *Client) Request(ctx context.Context, m Move) (Machine, error) {
	body, _ := json.Marshal(moveBody{Type: m.Type, Customer: m.Customer})
	u := c.base + machinesPath + url.PathEscape(m.ID) + "/" + url.PathEscape(m.Action)
	return c.call(ctx, http.MethodPost, u, body)
}

// Machine implements Provider.
func (c *Client) Machine(ctx context.Context, ref Ref) (Machine, error) {
	q := url.Values{"type": {ref.Type}, "customer": {ref.Customer}}
	return c.call(ctx, http.MethodGet, c.base+machinesPath+url.PathEscape(ref.ID)+"?"+q.Encode(), nil)
}

func (c *Client) call(ctx context.Context, method, u string, body []byte) (Machine, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return Machine{}, fmt.Errorf("computing: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Machine{}, outbound.CallFailed(outbound.Dest(u), c.timeout, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return Machine{}, fmt.Errorf("computing: reading the provider's answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return Machine{}, c.failure(resp, raw)
	}
	return decodeMachine(raw)
}

// decodeMachine reads a machine and checks its state is one the protocol
// knows, so a provider gone wrong cannot write any word into a record.
func decodeMachine(raw []byte) (Machine, error) {
	var m Machine
	if len(raw) > maxAnswer {
		return m, fmt.Errorf("computing: the provider's answer is larger than %d KiB", maxAnswer>>10)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("computing: unreadable provider answer: %w", err)
	}
	if !Transitional(m.State) && !isState(m.State) {
		return m, fmt.Errorf("computing: the provider answered the unknown state %q", outbound.Bound(m.State, 40))
	}
	return m, nil
}

func isState(s string) bool { return s == Running || s == Stopped || s == Terminated }

// failure maps a provider's error answer: refused and unknown machines are
// final, rate limits and server failures pass with time.
func (c *Client) failure(resp *http.Response, raw []byte) error {
	msg := strings.TrimSpace(string(raw))
	if c.token != "" { // never echo the token, should the provider quote it
		msg = strings.ReplaceAll(msg, c.token, "[token]")
	}
	msg = outbound.Bound(msg, 300)
	switch s := resp.StatusCode; {
	case s == http.StatusConflict:
		return fmt.Errorf("%w: %s", ErrRefused, msg)
	case s == http.StatusNotFound:
		return fmt.Errorf("%w: %s", ErrUnknownMachine, msg)
	case s == http.StatusTooManyRequests || s >= 500:
		return &outbound.RetryableError{Service: "compute", Status: s, Message: msg,
			RetryAfter: outbound.RetryAfter(resp.Header.Get("Retry-After"), time.Now())}
	}
	return &outbound.PermanentError{Service: "compute", Status: resp.StatusCode, Message: msg}
}
