package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds one request when Config.Timeout is zero: a long
// answer takes a model a minute or more.
const DefaultTimeout = 2 * time.Minute

// Config configures an OpenAI-compatible provider.
type Config struct {
	URL     string        // the API base, "https://api.openai.com/v1"; the endpoint is URL + "/chat/completions"
	Key     string        // sent as "Authorization: Bearer <Key>"
	Model   string        // used when Request.Model is ""; may be ""
	Timeout time.Duration // of one request; zero: DefaultTimeout
}

// OpenAI completes with the OpenAI chat-completions protocol.
type OpenAI struct {
	endpoint string
	key      string
	model    string
	timeout  time.Duration
	client   *http.Client
}

var _ Provider = (*OpenAI)(nil)

// New returns a provider calling through client. Callers pass the
// platform's guarded client (outbound.Guard.Client), so a tenant-set URL
// cannot reach the platform's own network; the client's own Timeout
// applies besides cfg.Timeout.
func New(cfg Config, client *http.Client) (*OpenAI, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("llm: no HTTP client given")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &OpenAI{
		endpoint: strings.TrimRight(cfg.URL, "/") + "/chat/completions",
		key:      cfg.Key,
		model:    cfg.Model,
		timeout:  timeout,
		client:   client,
	}, nil
}

func (c Config) validate() error {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("llm: URL %q is no http(s) URL with a host", c.URL)
	}
	if strings.TrimSpace(c.Key) == "" {
		return errors.New("llm: no API key configured")
	}
	if len(c.Model) > MaxModelLen {
		return fmt.Errorf("llm: default model name longer than %d bytes", MaxModelLen)
	}
	return nil
}

// Complete implements Provider. With ErrTruncated it returns the cut
// Response too, so a caller can still count the tokens it paid for.
func (o *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	if req.Model == "" {
		req.Model = o.model
	}
	if err := req.validate(); err != nil {
		return Response{}, err
	}
	return o.send(ctx, newChatRequest(req))
}
