package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"platform/kernel/auth"
)

// answer is an API answer as the console reads it.
type answer struct {
	Status  int
	Payload json.RawMessage `json:"payload"`
	Meta    struct {
		Page          int        `json:"page"`
		Limit         int        `json:"limit"`
		Total         *int64     `json:"total"`
		TotalRelation string     `json:"totalRelation"` // "eq" or "gte" (capped counts); absent: exact
		Errors        []apiError `json:"errors"`
	} `json:"meta"`
}

type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// ok: a 2xx answer.
func (a *answer) ok() bool { return a.Status >= 200 && a.Status < 300 }

// message is the answer's errors in one line.
func (a *answer) message() string {
	var parts []string
	for _, e := range a.Meta.Errors {
		m := e.Message
		if e.Field != "" && !strings.Contains(m, e.Field) {
			m = e.Field + ": " + m
		}
		parts = append(parts, m)
	}
	if len(parts) == 0 {
		return http.StatusText(a.Status)
	}
	return strings.Join(parts, "; ")
}

// record decodes the payload as one record.
func (a *answer) record() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(a.Payload, &m)
	return m
}

// records decodes the payload as a list.
func (a *answer) records() []map[string]any {
	var l []map[string]any
	_ = json.Unmarshal(a.Payload, &l)
	return l
}

// caller is one request's way to the API, as its signed-in user.
type caller struct {
	c *Console
	b *session
}

// do calls the API in-process with the user's access token, refreshing
// it when it is about to expire or was refused as expired.
func (k *caller) do(ctx context.Context, method, path string, q url.Values, body any) (*answer, error) {
	b, err := k.c.fresh(ctx, k.b)
	if err != nil {
		return nil, err
	}
	k.b = b
	a, err := k.c.send(ctx, b.Access, method, path, q, body)
	if err != nil || a.Status != http.StatusUnauthorized {
		return a, err
	}
	if k.b, err = k.c.refresh(ctx, b); err != nil {
		return nil, err
	}
	a, err = k.c.send(ctx, k.b.Access, method, path, q, body)
	if err == nil && a.Status == http.StatusUnauthorized {
		return nil, errSignedOut
	}
	return a, err
}

// allows: the user's granted rights include right (what the API checks).
func (k *caller) allows(right string) bool {
	return (&auth.Principal{Scopes: k.b.Scopes}).Allows(right)
}

func (c *Console) send(ctx context.Context, token, method, path string, q url.Values, body any) (*answer, error) {
	u := c.gateway + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader = http.NoBody
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := inProcess{h: c.d.Handler}.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	a := &answer{Status: res.StatusCode}
	if err := json.NewDecoder(res.Body).Decode(a); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return a, nil
}
