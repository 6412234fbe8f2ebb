package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"

	"platform/kernel/outbound"
)

// oauth2Provider serves OAuth 2.0 client credentials and refresh tokens
// (RFC 6749): refresh is a token request at values.tokenUrl, revoke is
// RFC 7009 at values.revocationUrl. The client authenticates with HTTP
// Basic (values.clientAuth "basic", the default) or in the form ("body").
type oauth2Provider struct{ d Deps }

var _ Provider = oauth2Provider{}

// maxTokenAnswer bounds the body read from a token or revocation endpoint.
const maxTokenAnswer = 64 << 10

// tokenAnswer is a token endpoint's JSON (RFC 6749 §5.1 and §5.2).
type tokenAnswer struct {
	AccessToken  string      `json:"access_token"`
	TokenType    string      `json:"token_type"`
	ExpiresIn    json.Number `json:"expires_in"`
	RefreshToken string      `json:"refresh_token"`
	Scope        string      `json:"scope"`
}

// Test: with values.url, a request carrying values.accessToken must answer
// 2xx; without, a client-credentials token request must succeed (the
// token obtained is not kept). A refresh token is never used up by a test.
func (p oauth2Provider) Test(ctx context.Context, v Values) error {
	if _, has := v["url"]; has {
		target, err := httpURL(v, "url")
		if err != nil {
			return err
		}
		tok, err := str(v, "accessToken", true)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return &InvalidError{Field: "credentials.url", Reason: "is not a valid request URL"}
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		return probe(p.d.HTTP, req)
	}
	if _, has := v["refreshToken"]; has {
		return &InvalidError{Field: "credentials.url", Reason: "is needed to test a credential holding a refresh token (a URL of the service that accepts its access token); a test never uses up the refresh token"}
	}
	_, err := p.token(ctx, v, url.Values{"grant_type": {"client_credentials"}})
	return err
}

// Refresh asks for new tokens: the refresh_token grant when the values
// hold a refresh token, else client_credentials. The answer keeps every
// other value and sets accessToken, tokenType, expiresAt and, when the
// provider rotates it, refreshToken.
func (p oauth2Provider) Refresh(ctx context.Context, v Values) (Values, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if rt, err := str(v, "refreshToken", false); err != nil {
		return nil, err
	} else if rt != "" {
		form = url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}
	}
	ans, err := p.token(ctx, v, form)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(v)
	out["accessToken"], out["tokenType"] = ans.AccessToken, ans.TokenType
	delete(out, "expiresAt")
	if secs, err := ans.ExpiresIn.Int64(); err == nil && secs > 0 {
		out["expiresAt"] = time.Now().UTC().Add(time.Duration(secs) * time.Second).Format(time.RFC3339)
	}
	if ans.RefreshToken != "" {
		out["refreshToken"] = ans.RefreshToken
	}
	return out, nil
}

// Revoke revokes the refresh token (which ends its access tokens too) or,
// without one, the access token (RFC 7009 §2.1).
func (p oauth2Provider) Revoke(ctx context.Context, v Values) (bool, error) {
	endpoint, err := httpURL(v, "revocationUrl")
	if err != nil {
		return false, err
	}
	form := url.Values{}
	for _, k := range []string{"refreshToken", "accessToken"} {
		tok, err := str(v, k, false)
		if err != nil {
			return false, err
		}
		if tok != "" {
			form.Set("token", tok)
			form.Set("token_type_hint", map[string]string{"refreshToken": "refresh_token", "accessToken": "access_token"}[k])
			break
		}
	}
	if form.Get("token") == "" {
		return false, &InvalidError{Field: "credentials.refreshToken", Reason: "a refresh or access token is needed to revoke"}
	}
	status, body, err := p.post(ctx, v, endpoint, form)
	if err != nil {
		return false, err
	}
	if status != http.StatusOK {
		return false, oauthFailure("the revocation endpoint", status, body)
	}
	return true, nil
}

// token makes a token request and checks the answer.
func (p oauth2Provider) token(ctx context.Context, v Values, form url.Values) (*tokenAnswer, error) {
	endpoint, err := httpURL(v, "tokenUrl")
	if err != nil {
		return nil, err
	}
	if scope, err := str(v, "scope", false); err != nil {
		return nil, err
	} else if scope != "" {
		form.Set("scope", scope)
	}
	status, body, err := p.post(ctx, v, endpoint, form)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, oauthFailure("the token endpoint", status, body)
	}
	var ans tokenAnswer
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&ans); err != nil || ans.AccessToken == "" {
		return nil, &Failure{Reason: "the token endpoint answered 200 without a JSON access_token"}
	}
	return &ans, nil
}

// post sends form to endpoint with the client's authentication.
func (p oauth2Provider) post(ctx context.Context, v Values, endpoint string, form url.Values) (int, []byte, error) {
	id, err := str(v, "clientId", true)
	if err != nil {
		return 0, nil, err
	}
	secret, err := str(v, "clientSecret", false)
	if err != nil {
		return 0, nil, err
	}
	style, err := str(v, "clientAuth", false)
	if err != nil {
		return 0, nil, err
	}
	if style == "body" {
		form.Set("client_id", id)
		if secret != "" {
			form.Set("client_secret", secret)
		}
	} else if style != "" && style != "basic" {
		return 0, nil, &InvalidError{Field: "credentials.clientAuth", Reason: "must be basic or body"}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, nil, &InvalidError{Field: "credentials.tokenUrl", Reason: "is not a valid request URL"}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if style != "body" {
		// RFC 6749 §2.3.1: both parts form-encoded before Basic.
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	resp, err := p.d.HTTP.Do(req)
	if err != nil {
		dest := outbound.Dest(endpoint)
		return 0, nil, &Failure{Reason: outbound.Cause(outbound.CallFailed(dest, Timeout, err)), Err: err}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxTokenAnswer))
	return resp.StatusCode, body, nil
}

// oauthFailure reads an RFC 6749 §5.2 error answer: its error code (a
// fixed vocabulary, never a secret); invalid_grant means the grant ended.
func oauthFailure(what string, status int, body []byte) *Failure {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	code := sanitizeCode(e.Error)
	if code == "" {
		return statusFailure(what, status)
	}
	return &Failure{Reason: fmt.Sprintf("%s answered HTTP %d, error %s", what, status, code), Expired: code == "invalid_grant"}
}

// sanitizeCode keeps an error code only when it has the RFC's shape
// (printable ASCII without quotes or backslash, bounded): a server must
// not get arbitrary text (an echoed token) into the answer.
func sanitizeCode(s string) string {
	if len(s) > 64 {
		return ""
	}
	for _, c := range s {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == ' ' {
			return ""
		}
	}
	return s
}
