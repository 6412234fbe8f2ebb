package notifier

import (
	"encoding/json"
	"time"
)

// Messages are JSON text frames (docs/notifier.md). Server to client:
// ready, subscribed, event, notification, resync, error, pong. Client to
// server: auth, subscribe, unsubscribe, ping.

// clientMessage is any message a client sends.
type clientMessage struct {
	Type        string   `json:"type"`
	Token       string   `json:"token,omitempty"`
	Events      []string `json:"events,omitempty"`
	LastEventID string   `json:"lastEventId,omitempty"`
}

// Message types.
const (
	TypeAuth         = "auth"
	TypeSubscribe    = "subscribe"
	TypeUnsubscribe  = "unsubscribe"
	TypePing         = "ping"
	TypeReady        = "ready"
	TypeSubscribed   = "subscribed"
	TypeEvent        = "event"
	TypeNotification = "notification"
	TypeResync       = "resync"
	TypeError        = "error"
	TypePong         = "pong"
)

// eventMessage is one event as webhooks get it (DESIGN §5: event,
// timestamp, customer, data) plus its id, the resume point.
type eventMessage struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	Event     string         `json:"event"`
	Timestamp time.Time      `json:"timestamp"`
	Customer  string         `json:"customer"`
	Data      map[string]any `json:"data"`
}

// notificationMessage is one in-app notification of the connected user.
type notificationMessage struct {
	Type         string         `json:"type"`
	ID           string         `json:"id"`
	Timestamp    time.Time      `json:"timestamp"`
	Notification map[string]any `json:"notification"`
}

// readyMessage answers a successful authentication.
type readyMessage struct {
	Type          string   `json:"type"`
	Customer      string   `json:"customer"`
	Subscriptions []string `json:"subscriptions"`
	Heartbeat     int      `json:"heartbeatSeconds"`
}

// subscribedMessage lists the subscriptions after a change.
type subscribedMessage struct {
	Type          string   `json:"type"`
	Subscriptions []string `json:"subscriptions"`
}

// problemMessage is an error (the connection stays open) or a resync.
type problemMessage struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil { // only platform-built values are encoded here
		b, _ = json.Marshal(problemMessage{Type: TypeError, Code: "internal", Message: "a message could not be encoded"})
	}
	return b
}
