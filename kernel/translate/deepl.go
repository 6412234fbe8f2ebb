package translate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds one request when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Config configures a DeepL provider.
type Config struct {
	BaseURL string        // "https://api.deepl.com" or "https://api-free.deepl.com"; no /v2
	Key     string        // the DeepL auth key
	Timeout time.Duration // of one request; zero: DefaultTimeout
}

// DeepL translates with the DeepL API v2 (POST {BaseURL}/v2/translate).
type DeepL struct {
	endpoint string
	key      string
	timeout  time.Duration
	client   *http.Client
}

// New returns a DeepL provider calling through client. Callers pass the
// platform's guarded client (outbound.Guard.Client), so a tenant-set
// BaseURL cannot reach the platform's own network; the client's own
// Timeout applies besides cfg.Timeout.
func New(cfg Config, client *http.Client) (*DeepL, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("translate: no HTTP client given")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	endpoint := strings.TrimRight(cfg.BaseURL, "/") + "/v2/translate"
	return &DeepL{endpoint: endpoint, key: cfg.Key, timeout: timeout, client: client}, nil
}

func (c Config) validate() error {
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("translate: base URL %q is no http(s) URL with a host", c.BaseURL)
	}
	if strings.TrimSpace(c.Key) == "" {
		return errors.New("translate: no API key configured")
	}
	return nil
}

// Translate implements Provider. Texts are sent in batches of at most
// maxTexts and about maxBatchBytes each, one after the other; the first
// failing batch ends the call.
func (d *DeepL) Translate(ctx context.Context, texts []string, source, target string, format Format) ([]string, error) {
	req, err := newRequest(source, target, format)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(texts))
	for _, batch := range batches(texts) {
		req.Text = batch
		got, err := d.send(ctx, req)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}
