package channels

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"platform/modules/automation/webhook"
)

// generic posts the notification as JSON to any URL, signed like the
// platform's webhooks (docs/webhooks.md): X-Platform-Signature over the
// body, and the Standard Webhooks headers webhook-id (the delivery id,
// the same for every attempt), webhook-timestamp and webhook-signature.
//
//	{"event": "consumers.created", "eventId": "...", "subject": "...", "body": "...",
//	 "data": {...}, "route": "...", "channel": "...", "timestamp": "..."}
type generic struct{}

var _ Kind = generic{}

func init() { register(generic{}) }

func (generic) Name() string { return KindWebhook }

func (generic) Settings() []Setting {
	return []Setting{
		{Name: "url", Required: true, Type: TypeString, Check: httpURL, Description: "where the notification is posted"},
		{Name: "signingSecret", Secret: true, Required: true, Type: TypeString, Check: minLen(webhook.MinSecretLen),
			Description: fmt.Sprintf("the key of the signatures, at least %d characters (sealed, never shown)", webhook.MinSecretLen)},
	}
}

func (generic) Send(ctx context.Context, env *Env, t Target, m Message) error {
	c, err := jsonCall(KindWebhook, str(t.Settings, "url"), map[string]any{
		"event": m.EventName, "eventId": m.EventID, "subject": m.Subject, "body": m.Body, "data": m.Data,
		"route": m.Route, "channel": m.Channel, "timestamp": m.Time.UTC(),
	})
	if err != nil {
		return err
	}
	secret := str(t.Secrets, "signingSecret")
	unix := m.Time.Unix()
	c.header = http.Header{
		webhook.HeaderSignature: {webhook.Signature(secret, c.body)},
		webhook.HeaderEvent:     {m.EventName},
		webhook.HeaderDelivery:  {m.DeliveryID},
		webhook.HeaderSWID:      {m.DeliveryID},
		webhook.HeaderSWTime:    {strconv.FormatInt(unix, 10)},
		webhook.HeaderSWSig:     {webhook.StandardSignature(secret, m.DeliveryID, unix, c.body)},
	}
	return env.do(ctx, c)
}

func minLen(n int) func(any) string {
	return func(v any) string {
		if len(v.(string)) < n {
			return fmt.Sprintf("must be at least %d characters", n)
		}
		return ""
	}
}
