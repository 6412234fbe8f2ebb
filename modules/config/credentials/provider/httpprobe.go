package provider

import (
	"context"
	"io"
	"net/http"

	"platform/kernel/outbound"
)

// httpProbe serves the types whose test is a request to a URL of the
// service carrying the credential (http-basic, api-key, bearer): 2xx is
// accepted. They have nothing to refresh, and no revocation endpoint.
type httpProbe struct {
	d    Deps
	auth func(req *http.Request, v Values) error
}

var _ Provider = httpProbe{}

func (p httpProbe) Test(ctx context.Context, v Values) error {
	target, err := httpURL(v, "url")
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return &InvalidError{Field: "credentials.url", Reason: "is not a valid request URL"}
	}
	if err := p.auth(req, v); err != nil {
		return err
	}
	return probe(p.d.HTTP, req)
}

// probe sends req and accepts a 2xx answer.
func probe(c *http.Client, req *http.Request) error {
	dest := outbound.Dest(req.URL.String())
	resp, err := c.Do(req)
	if err != nil {
		return &Failure{Reason: outbound.Cause(outbound.CallFailed(dest, Timeout, err)), Err: err}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return statusFailure(dest, resp.StatusCode)
	}
	return nil
}

func (httpProbe) Refresh(context.Context, Values) (Values, error) { return nil, ErrUnsupported }

func (httpProbe) Revoke(context.Context, Values) (bool, error) { return false, nil }

func basicAuth(req *http.Request, v Values) error {
	user, err := str(v, "username", true)
	if err != nil {
		return err
	}
	pass, err := str(v, "password", true)
	if err != nil {
		return err
	}
	req.SetBasicAuth(user, pass)
	return nil
}

// apiKeyAuth sends the key in the header named by values.header
// (default X-API-Key).
func apiKeyAuth(req *http.Request, v Values) error {
	key, err := str(v, "key", true)
	if err != nil {
		return err
	}
	header, err := str(v, "header", false)
	if err != nil {
		return err
	}
	if header == "" {
		header = "X-API-Key"
	}
	if !validHeaderName(header) {
		return &InvalidError{Field: "credentials.header", Reason: "must be an HTTP header name"}
	}
	req.Header.Set(header, key)
	return nil
}

func bearerAuth(req *http.Request, v Values) error {
	tok, err := str(v, "token", true)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	return nil
}

// validHeaderName: RFC 9110 token characters only.
func validHeaderName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
