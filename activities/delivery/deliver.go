package delivery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"platform/kernel/outbound"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/workflows/contract"
)

// HeartbeatEvery is how often a running delivery attempt heartbeats, so a
// worker that dies mid-attempt is noticed after the heartbeat time-out
// rather than after the whole attempt's time-out.
const HeartbeatEvery = 3 * time.Second

// DeliverWebhook makes one signed POST of the event to the webhook and
// records the attempt. Any answer but 2xx is an error the retry policy
// retries; 410 Gone deactivates the webhook and is not retried. The
// webhook is read on every attempt, so a changed URL or secret applies to
// the next attempt and a deactivated or deleted webhook stops its retries.
func (a *Activities) DeliverWebhook(ctx context.Context, in contract.DeliverInput) (contract.DeliverOutput, error) {
	hook, err := a.Store.Collection(webhook.Collection).Get(ctx, in.WebhookID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && hook["active"] != true) {
		return contract.DeliverOutput{Status: webhook.StatusSkipped}, nil
	} else if err != nil {
		return contract.DeliverOutput{}, err
	}
	ev, err := a.loadEvent(ctx, in.EventID)
	if errors.Is(err, store.ErrNotFound) {
		return contract.DeliverOutput{Status: webhook.StatusSkipped}, nil
	} else if err != nil {
		return contract.DeliverOutput{}, err
	}
	out, err := a.Try(ctx, Attempt{EventID: in.EventID, Event: ev, Hook: hook, Round: in.Round, N: int(activity.GetInfo(ctx).Attempt)})
	if err != nil {
		return contract.DeliverOutput{}, err
	}
	return judge(out)
}

// Attempt is one delivery attempt of a loaded event to a loaded webhook.
type Attempt struct {
	EventID string
	Event   Event
	Hook    store.Doc // the webhook record, secret included
	Round   int       // 0: the dispatch; n: the n-th manual retry
	N       int       // the attempt's number in its round, from 1
	// Retake: the event was claimed before by a dispatcher that died or
	// lost its lease; an attempt it already recorded delivered is not sent
	// again.
	Retake bool
}

// Outcome is how an attempt ended.
type Outcome struct {
	Status     string // webhook.StatusDelivered, StatusFailed or contract.StatusDeactivated (410 Gone)
	StatusCode int
	Error      string // why it failed, as the tenant may read it
	At         time.Time
	Duration   time.Duration
}

// Try makes one signed POST of the event to the webhook (the customer in
// ctx), records it in webhookdeliveries and, on 410 Gone, deactivates the
// webhook. The error is the platform's: the deactivation failed.
func (a *Activities) Try(ctx context.Context, at Attempt) (Outcome, error) {
	hookID, _ := at.Hook["_id"].(string)
	cust, _ := tenant.Customer(ctx)
	msg := webhook.Message{DeliveryID: webhook.DeliveryID(at.EventID, hookID), Event: at.Event.Name,
		Timestamp: at.Event.Timestamp, Customer: cust, Data: at.Event.Data}
	if at.Retake {
		if out, ok := a.deliveredBefore(ctx, webhook.AttemptRecordID(msg.DeliveryID, at.Round, at.N)); ok {
			return out, nil
		}
	}
	target := targetOf(at.Hook)
	var res attempt
	secret, err := a.webhookSecret(cust, hookID, at.Hook["secret"])
	if err != nil {
		// A secret that does not open (another master key) must not send
		// an unsigned delivery: fail the attempt.
		res = attempt{At: time.Now().UTC().Truncate(time.Millisecond), Err: "the webhook's secret cannot be opened: " + err.Error()}
	} else {
		target.Secret = secret
		res = a.post(ctx, target, msg)
	}
	a.recordAttempt(ctx, at, hookID, msg, target.URL, res)
	out := Outcome{Status: webhook.StatusFailed, StatusCode: res.StatusCode, At: res.At, Duration: res.Duration}
	switch {
	case res.ok():
		out.Status = webhook.StatusDelivered
	case res.StatusCode == http.StatusGone:
		out.Status, out.Error = contract.StatusDeactivated, res.summary()
		return out, a.deactivate(ctx, hookID)
	default:
		out.Error = res.summary()
	}
	return out, nil
}

// deliveredBefore answers the outcome of an attempt already recorded
// delivered (by a dispatcher that died before marking its event).
func (a *Activities) deliveredBefore(ctx context.Context, recordID string) (Outcome, bool) {
	doc, err := a.Store.Collection(webhook.DeliveriesCollection).Get(ctx, recordID)
	if err != nil || doc["status"] != webhook.StatusDelivered {
		return Outcome{}, false
	}
	at, _ := doc["createdAt"].(time.Time)
	return Outcome{Status: webhook.StatusDelivered, StatusCode: int(store.Int(doc["statusCode"])), At: at}, true
}

// judge turns an attempt's outcome into the activity's result.
func judge(out Outcome) (contract.DeliverOutput, error) {
	switch out.Status {
	case webhook.StatusDelivered:
		return contract.DeliverOutput{Status: webhook.StatusDelivered, StatusCode: out.StatusCode}, nil
	case contract.StatusDeactivated:
		return contract.DeliverOutput{}, temporal.NewNonRetryableApplicationError("the receiver answered 410 Gone; the webhook is deactivated", contract.ErrTypeGone, nil)
	}
	return contract.DeliverOutput{}, temporal.NewApplicationError(out.Error, contract.ErrTypeAttemptFailed, out.StatusCode)
}

// attempt is what one POST gave.
type attempt struct {
	At         time.Time
	Duration   time.Duration
	StatusCode int    // 0 when no answer came
	Err        string // transport error or refusal, as the tenant may read it (outbound.Cause)
}

func (r attempt) ok() bool { return r.Err == "" && r.StatusCode >= 200 && r.StatusCode < 300 }

func (r attempt) summary() string {
	if r.Err != "" {
		return r.Err
	}
	return fmt.Sprintf("the receiver answered %d", r.StatusCode)
}

// post sends the message once, heartbeating while it waits.
func (a *Activities) post(ctx context.Context, t webhook.Target, m webhook.Message) attempt {
	stop := temporalx.Heartbeat(ctx, HeartbeatEvery)
	defer stop()
	start := time.Now()
	code, err := a.send(ctx, t, m, start)
	r := attempt{At: start.UTC().Truncate(time.Millisecond), Duration: time.Since(start), StatusCode: code}
	if err != nil {
		// The full text names resolvers and addresses of the platform's
		// network: the log keeps it, the records get the cause.
		a.Log.WarnContext(ctx, "webhook attempt failed", "delivery", m.DeliveryID, "error", err)
		r.Err = outbound.Cause(err)
	}
	return r
}

// send makes the POST and returns the answer's status.
func (a *Activities) send(ctx context.Context, t webhook.Target, m webhook.Message, now time.Time) (int, error) {
	body, err := m.Body()
	if err != nil {
		return 0, fmt.Errorf("encode body: %w", err)
	}
	req, err := webhook.NewRequest(ctx, t, m, body, now)
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	timeout := a.webhookTimeout()
	res, err := a.client(timeout).Do(req)
	if err != nil {
		return 0, outbound.CallFailed(outbound.Dest(t.URL), timeout, err)
	}
	// Drain a little so the connection can be reused; the answer's body is
	// not kept (it may be large or hold the receiver's data).
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	return res.StatusCode, nil
}

func (a *Activities) webhookTimeout() time.Duration {
	if a.WebhookTimeout <= 0 {
		return 10 * time.Second
	}
	return a.WebhookTimeout
}

func (a *Activities) client(timeout time.Duration) *http.Client {
	if a.Outbound == nil {
		return &http.Client{Transport: refuseAll{}}
	}
	return a.Outbound.Client(timeout)
}

// refuseAll stands in when no guard is configured: fail closed.
type refuseAll struct{}

func (refuseAll) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("outbound calls are not configured in this process")
}

// targetOf reads where and how a webhook receives.
func targetOf(hook store.Doc) webhook.Target {
	t := webhook.Target{Headers: map[string]string{}}
	t.URL, _ = hook["url"].(string)
	if h, ok := hook["headers"].(store.Doc); ok {
		for k, v := range h {
			if s, ok := v.(string); ok {
				t.Headers[k] = s
			}
		}
	}
	return t
}

// webhookSecret is a webhook's signing secret: sealed by the vault
// (modules/automation seals it when a master key is set) or, stored before
// that or without a key, as it was given.
func (a *Activities) webhookSecret(customer, hookID string, stored any) (string, error) {
	switch s := stored.(type) {
	case string:
		return s, nil
	case store.Doc:
		if a.Vault == nil {
			return "", errors.New("no master key in this worker")
		}
		plain, err := a.Vault.Open(customer, hookID, s)
		if err != nil {
			return "", err
		}
		secret, _ := plain["secret"].(string)
		return secret, nil
	}
	return "", nil
}

// recordAttempt writes the attempt's webhookdeliveries record under an id
// derived from the attempt, so a repeated write is a no-op. A failed write
// is logged, not fatal: the delivery matters more than its history.
func (a *Activities) recordAttempt(ctx context.Context, at Attempt, hookID string, m webhook.Message, rawURL string, r attempt) {
	n := at.N
	status := webhook.StatusFailed
	if r.ok() {
		status = webhook.StatusDelivered
	}
	doc := store.Doc{
		"_id": webhook.AttemptRecordID(m.DeliveryID, at.Round, n), "webhook": hookID, "event": at.EventID,
		"eventName": m.Event, "delivery": m.DeliveryID, "round": int64(at.Round), "attempt": int64(n),
		"url": redactURL(rawURL), "status": status, "durationMs": r.Duration.Milliseconds(),
		"createdAt": r.At,
	}
	if r.StatusCode != 0 {
		doc["statusCode"] = int64(r.StatusCode)
	}
	if !r.ok() {
		doc["error"] = r.summary()
	}
	if err := a.Store.Collection(webhook.DeliveriesCollection).Insert(ctx, doc); err != nil && !store.IsDuplicate(err) {
		a.Log.WarnContext(ctx, "record webhook attempt", "delivery", m.DeliveryID, "attempt", n, "error", err)
		return
	}
	a.aggregateAttempt(ctx, doc)
}

// redactURL hides a password in the URL's user info.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Redacted()
}

// deactivate turns the webhook off after a 410 Gone. It is the platform's
// change of a tenant's record, so it goes through the record service like
// every write: stamped (updatedAt, modifiedBy: the platform, as the
// activity acts for no principal) and announced as webhooks.updated. A
// webhook deleted meanwhile has nothing left to turn off.
func (a *Activities) deactivate(ctx context.Context, id string) error {
	hooks, err := a.webhookResource()
	if err != nil {
		return err
	}
	_, err = a.Records.Apply(ctx, hooks, query.ID(id), resource.Change{
		Set: store.Doc{
			"active": false, "deactivatedAt": time.Now().UTC().Truncate(time.Millisecond),
			"deactivatedReason": "the receiver answered 410 Gone",
		},
		Event: resource.EventUpdated,
	})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil
	}
	return err
}

// webhookResource is the declaration of webhook records the record service
// writes them by.
func (a *Activities) webhookResource() (*resource.Resource, error) {
	if a.Records == nil {
		return nil, errors.New("no record service in this worker: the webhook cannot be deactivated")
	}
	r := a.Records.Registry.ByPlural(webhook.Collection)
	if r == nil {
		return nil, errors.New("webhooks are not declared in this worker's registry")
	}
	return r, nil
}
