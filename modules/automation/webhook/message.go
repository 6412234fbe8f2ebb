package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// UserAgent names the platform's webhook sender.
const UserAgent = "Platform-Webhooks/1.0"

// Message is one event as a webhook receives it.
type Message struct {
	DeliveryID string
	Event      string
	Timestamp  time.Time // when the event happened
	Customer   string
	Data       map[string]any
}

// Body is the JSON body { event, timestamp, customer, data }. One message
// always encodes to the same bytes (map keys are sorted), so every attempt
// of a delivery sends the same body.
func (m Message) Body() ([]byte, error) {
	return json.Marshal(struct {
		Event     string         `json:"event"`
		Timestamp string         `json:"timestamp"`
		Customer  string         `json:"customer"`
		Data      map[string]any `json:"data"`
	}{m.Event, m.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z"), m.Customer, m.Data})
}

// Target is where and how a webhook receives.
type Target struct {
	URL     string
	Secret  string // empty: unsigned
	Headers map[string]string
}

// NewRequest builds one attempt's POST of body (the message's Body) at time
// now. The signatures cover exactly body; the tenant's headers are added
// first, so the platform's own headers always win.
func NewRequest(ctx context.Context, t Target, m Message, body []byte, now time.Time) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range t.Headers {
		if CheckHeader(k, v) == "" {
			req.Header.Set(k, v)
		}
	}
	unix := now.Unix()
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set(HeaderEvent, m.Event)
	h.Set(HeaderDelivery, m.DeliveryID)
	h.Set(HeaderSWID, m.DeliveryID)
	h.Set(HeaderSWTime, strconv.FormatInt(unix, 10))
	if t.Secret != "" {
		h.Set(HeaderSignature, Signature(t.Secret, body))
		h.Set(HeaderSWSig, StandardSignature(t.Secret, m.DeliveryID, unix, body))
	}
	return req, nil
}
