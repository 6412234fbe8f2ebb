package adsapi

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
	"sync"
	"time"

	"golang.org/x/oauth2"

	"platform/kernel/outbound"
)

// maxAnswer bounds one answer of the API (a page of 10,000 rows fits).
const maxAnswer = 32 << 20

// Config names the platform's endpoints and this application's
// registration there.
type Config struct {
	APIURL         string // base of /v23/customers/...
	AuthURL        string // the authorization endpoint (the user's browser goes there)
	TokenURL       string // the token endpoint
	ClientID       string
	ClientSecret   string
	DeveloperToken string // sent as the developer-token header
	Timeout        time.Duration
	// MaxWait is the longest Retry-After the client waits out itself; a
	// longer one is returned as an outbound.RetryableError for the
	// workflow's retry policy to honour.
	MaxWait time.Duration
}

// Client is the HTTP implementation of Provider.
type Client struct {
	cfg    Config
	oauth  oauth2.Config
	http   *http.Client
	mu     sync.Mutex
	tokens map[string]*oauth2.Token // access tokens by refresh token, reused until they expire
}

var _ Provider = (*Client)(nil)

// NewClient checks cfg and calls through hc, the platform's guarded client.
func NewClient(cfg Config, hc *http.Client) (*Client, error) {
	for name, v := range map[string]string{"API URL": cfg.APIURL, "authorization URL": cfg.AuthURL, "token URL": cfg.TokenURL} {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("ads: the %s %q is no http(s) URL with a host", name, v)
		}
	}
	if hc == nil {
		return nil, errors.New("ads: no HTTP client given")
	}
	cfg.APIURL = strings.TrimRight(cfg.APIURL, "/")
	return &Client{cfg: cfg, http: hc, tokens: map[string]*oauth2.Token{}, oauth: oauth2.Config{
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		Endpoint: oauth2.Endpoint{AuthURL: cfg.AuthURL, TokenURL: cfg.TokenURL, AuthStyle: oauth2.AuthStyleInParams},
		Scopes:   []string{"https://www.googleapis.com/auth/adwords"},
	}}, nil
}

// AuthCodeURL implements Provider: offline access (a refresh token) and
// a consent prompt, so a reconnect gets a refresh token again.
func (c *Client) AuthCodeURL(state, verifier, redirectURL string) string {
	o := c.oauth
	o.RedirectURL = redirectURL
	return o.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.ApprovalForce, oauth2.S256ChallengeOption(verifier))
}

// Exchange implements Provider.
func (c *Client) Exchange(ctx context.Context, code, verifier, redirectURL string) (string, error) {
	o := c.oauth
	o.RedirectURL = redirectURL
	ctx, cancel := context.WithTimeout(c.httpCtx(ctx), c.cfg.Timeout)
	defer cancel()
	tok, err := o.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return "", tokenError(err, c.cfg.TokenURL, c.cfg.Timeout)
	}
	if tok.RefreshToken == "" {
		return "", &outbound.PermanentError{Service: "ads", Status: http.StatusOK, Message: "the token endpoint gave no refresh token"}
	}
	return tok.RefreshToken, nil
}

func (c *Client) httpCtx(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, c.http)
}

// accessToken is a valid access token for a's refresh token, refreshed
// when the cached one expired (or fresh when stale is the one refused).
func (c *Client) accessToken(ctx context.Context, a Account, stale string) (string, error) {
	c.mu.Lock()
	tok := c.tokens[a.RefreshToken]
	c.mu.Unlock()
	if tok != nil && tok.Valid() && tok.AccessToken != stale {
		return tok.AccessToken, nil
	}
	ctx, cancel := context.WithTimeout(c.httpCtx(ctx), c.cfg.Timeout)
	defer cancel()
	tok, err := c.oauth.TokenSource(ctx, &oauth2.Token{RefreshToken: a.RefreshToken}).Token()
	if err != nil {
		return "", tokenError(err, c.cfg.TokenURL, c.cfg.Timeout)
	}
	c.mu.Lock()
	c.tokens[a.RefreshToken] = tok
	c.mu.Unlock()
	return tok.AccessToken, nil
}

// tokenError maps the token endpoint's refusal: invalid_grant is a
// revoked or expired grant (final); a 5xx or 429 passes with time.
func tokenError(err error, dest string, timeout time.Duration) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return outbound.CallFailed(outbound.Dest(dest), timeout, err)
	}
	status := 0
	if re.Response != nil {
		status = re.Response.StatusCode
	}
	switch {
	case re.ErrorCode == "invalid_grant":
		return ErrRevoked
	case status == http.StatusTooManyRequests || status >= 500:
		return &outbound.RetryableError{Service: "ads", Status: status, Message: outbound.Bound(re.ErrorCode, 100)}
	}
	return &outbound.PermanentError{Service: "ads", Status: status, Code: outbound.Bound(re.ErrorCode, 100), Message: outbound.Bound(re.ErrorDescription, 300)}
}

// call posts body to path under the account and decodes the answer into
// out. A 401 refreshes the access token once; a 429 whose Retry-After is
// at most MaxWait is waited out (once) here.
func (c *Client) call(ctx context.Context, a Account, path string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	u := c.cfg.APIURL + "/" + Version + "/customers/" + url.PathEscape(a.CustomerID) + path
	stale := ""
	for attempt := 0; ; attempt++ {
		tok, err := c.accessToken(ctx, a, stale)
		if err != nil {
			return err
		}
		status, wait, err := c.post(ctx, a, u, tok, raw, out)
		switch {
		case status == http.StatusUnauthorized && stale == "":
			stale = tok
		case status == http.StatusTooManyRequests && attempt == 0 && wait > 0 && wait <= c.cfg.MaxWait:
			if err := sleep(ctx, wait); err != nil {
				return err
			}
		default:
			return err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// post makes one request; it answers the status and, for a 429, the wait
// the platform asked for.
func (c *Client) post(ctx context.Context, a Account, u, token string, body []byte, out any) (int, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("developer-token", c.cfg.DeveloperToken)
	if a.LoginCustomerID != "" {
		req.Header.Set("login-customer-id", a.LoginCustomerID)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, 0, outbound.CallFailed(outbound.Dest(u), c.cfg.Timeout, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return 0, 0, outbound.CallFailed(outbound.Dest(u), c.cfg.Timeout, err)
	}
	if resp.StatusCode/100 != 2 {
		return c.failure(resp, raw, token)
	}
	if len(raw) > maxAnswer {
		return resp.StatusCode, 0, fmt.Errorf("ads: the platform's answer is larger than %d MiB", maxAnswer>>20)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return resp.StatusCode, 0, fmt.Errorf("ads: unreadable answer of the platform: %w", err)
	}
	return resp.StatusCode, 0, nil
}

// failure maps an error answer: 429 and 5xx pass with time, a 404 is a
// missing entity, the rest is a rejected request.
func (c *Client) failure(resp *http.Response, raw []byte, token string) (int, time.Duration, error) {
	var eb ErrorBody
	_ = json.Unmarshal(raw, &eb)
	msg := outbound.Bound(strings.ReplaceAll(eb.Error.Message, token, "[token]"), 300)
	s := resp.StatusCode
	switch {
	case s == http.StatusTooManyRequests || s >= 500:
		wait := outbound.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return s, wait, &outbound.RetryableError{Service: "ads", Status: s, RetryAfter: wait, Message: msg}
	case s == http.StatusNotFound:
		return s, 0, fmt.Errorf("%w: %s", ErrNotFound, msg)
	}
	return s, 0, &outbound.PermanentError{Service: "ads", Status: s, Code: eb.Error.Status, Message: msg}
}

// search runs one page of a query.
func (c *Client) search(ctx context.Context, a Account, query, pageToken string) (SearchResponse, error) {
	var out SearchResponse
	err := c.call(ctx, a, "/googleAds:search", SearchRequest{Query: query, PageToken: pageToken}, &out)
	return out, err
}

// Entities implements Provider.
func (c *Client) Entities(ctx context.Context, a Account, kind string, since time.Time, pageToken string) (EntityPage, error) {
	res, err := c.search(ctx, a, EntityQuery(kind, since, ""), pageToken)
	if err != nil {
		return EntityPage{}, err
	}
	page := EntityPage{Next: res.NextPageToken, Entities: make([]Entity, 0, len(res.Results))}
	for _, r := range res.Results {
		e, err := FromRow(kind, a.CustomerID, r)
		if err != nil {
			return EntityPage{}, err
		}
		page.Entities = append(page.Entities, e)
	}
	return page, nil
}

// Entity implements Provider.
func (c *Client) Entity(ctx context.Context, a Account, kind, resourceName string) (Entity, error) {
	res, err := c.search(ctx, a, EntityQuery(kind, time.Time{}, resourceName), "")
	if err != nil {
		return Entity{}, err
	}
	if len(res.Results) == 0 {
		return Entity{}, fmt.Errorf("%w: %s", ErrNotFound, resourceName)
	}
	return FromRow(kind, a.CustomerID, res.Results[0])
}

// Metrics implements Provider.
func (c *Client) Metrics(ctx context.Context, a Account, level, from, to, pageToken string) (MetricPage, error) {
	res, err := c.search(ctx, a, MetricQuery(level, from, to), pageToken)
	if err != nil {
		return MetricPage{}, err
	}
	page := MetricPage{Next: res.NextPageToken, Rows: make([]MetricRow, 0, len(res.Results))}
	for _, r := range res.Results {
		m, err := MetricFromRow(level, r)
		if err != nil {
			return MetricPage{}, err
		}
		page.Rows = append(page.Rows, m)
	}
	return page, nil
}

// Performance implements Provider.
func (c *Client) Performance(ctx context.Context, a Account, from, to, pageToken string) (MetricPage, error) {
	res, err := c.search(ctx, a, PerformanceQuery(from, to), pageToken)
	if err != nil {
		return MetricPage{}, err
	}
	page := MetricPage{Next: res.NextPageToken, Rows: make([]MetricRow, 0, len(res.Results))}
	for _, r := range res.Results {
		r.Segments = &WireSegments{Date: to}
		m, err := MetricFromRow(LevelKeyword, r)
		if err != nil {
			return MetricPage{}, err
		}
		m.Date = ""
		page.Rows = append(page.Rows, m)
	}
	return page, nil
}

// Mutate implements Provider.
func (c *Client) Mutate(ctx context.Context, a Account, ch Change) (Entity, error) {
	path, op := "/campaigns:mutate", Operation{}
	var wire any = ToWireCampaign(ch.Entity)
	if ch.Entity.Kind == KindAdGroup {
		path, wire = "/adGroups:mutate", ToWireAdGroup(a.CustomerID, ch.Entity)
	}
	if ch.Entity.ResourceName == "" {
		op.Create = wire
	} else {
		op.Update, op.UpdateMask = wire, strings.Join(ch.Fields, ",")
	}
	var out MutateResponse
	if err := c.call(ctx, a, path, MutateRequest{Operations: []Operation{op}, ResponseContentType: "MUTABLE_RESOURCE"}, &out); err != nil {
		return Entity{}, err
	}
	if len(out.Results) != 1 {
		return Entity{}, fmt.Errorf("ads: the platform answered %d results to one operation", len(out.Results))
	}
	return FromRow(ch.Entity.Kind, a.CustomerID, Row{Campaign: out.Results[0].Campaign, AdGroup: out.Results[0].AdGroup})
}
