// Package channels sends notifications over the eleven channel kinds of
// /config/notificationchannels: mail (SMTP), sms (Twilio's Messages API),
// push (ntfy), slack, teams, discord, mattermost and googlechat (their
// incoming webhooks), telegram (Bot API sendMessage), webhook (a signed
// JSON POST) and inapp (a record per recipient for the in-app notifier).
// Each kind is one implementation of Kind: it declares its settings (which
// of them are secret and sealed by the vault), checks them, and sends one
// Message. Every outbound connection goes through the outbound guard.
//
// Errors of Send are permanent (IsPermanent: a retry fails again, such as
// a 4xx answer or a refused destination) or retryable (a 408, 429 or 5xx
// answer, a network failure); Cause is the text a tenant may read, which
// never holds a secret (a webhook URL's token, a bot token).
package channels

import (
	"context"
	"net"
	"net/http"
	"slices"
	"time"

	"platform/kernel/store"
)

// Message is one rendered notification.
type Message struct {
	Subject string
	Body    string
	// Event is what the notification is about; Data is the event's data.
	EventID, EventName string
	Data               map[string]any
	// DeliveryID names the delivery (route and event): the same for every
	// attempt, so a receiver can drop a repeated one (webhook-id) and the
	// in-app records are written once.
	DeliveryID string
	// Route and Channel name the records the notification went through.
	Route, Channel string
	Time           time.Time
}

// Target is one channel record: its kind's settings and its secrets,
// opened.
type Target struct {
	Kind     string
	Settings map[string]any
	Secrets  map[string]any
}

// Env is what kinds send with.
type Env struct {
	// HTTP makes the calls (the outbound guard's client, no redirects).
	HTTP *http.Client
	// Dial opens SMTP connections (the outbound guard's DialContext).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Store keeps the in-app notifications (of the customer in ctx).
	Store store.Store
	// Timeout bounds one call; zero: DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds one call of a kind when Env.Timeout is zero.
const DefaultTimeout = 10 * time.Second

func (e *Env) timeout() time.Duration {
	if e.Timeout > 0 {
		return e.Timeout
	}
	return DefaultTimeout
}

// Kind is one channel kind.
type Kind interface {
	// Name is the kind's value of the channel's kind field.
	Name() string
	// Settings declares the kind's settings, secret ones included.
	Settings() []Setting
	// Send delivers m over the channel t.
	Send(ctx context.Context, env *Env, t Target, m Message) error
}

// Kind names.
const (
	KindMail       = "mail"
	KindSMS        = "sms"
	KindPush       = "push"
	KindSlack      = "slack"
	KindTeams      = "teams"
	KindDiscord    = "discord"
	KindTelegram   = "telegram"
	KindWebhook    = "webhook"
	KindMattermost = "mattermost"
	KindGoogleChat = "googlechat"
	KindInApp      = "inapp"
)

var kinds = map[string]Kind{}

func register(k Kind) {
	kinds[k.Name()] = k
}

// Lookup finds a kind by name.
func Lookup(name string) (Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Names lists the kinds, sorted.
func Names() []string {
	out := make([]string, 0, len(kinds))
	for n := range kinds {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
