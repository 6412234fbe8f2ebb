package notifier

import (
	"fmt"

	"github.com/coder/websocket"
)

// Close codes (docs/notifier.md). A client reconnects after 1001 and 1013
// (with lastEventId), and not after 1008 until it has a new token.
const (
	closeNormal      = websocket.StatusNormalClosure   // 1000
	closeGoingAway   = websocket.StatusGoingAway       // 1001: the server shuts down
	closePolicy      = websocket.StatusPolicyViolation // 1008: no, a bad, expired or revoked token; a bad first message
	closeInternal    = websocket.StatusInternalError   // 1011: the store failed during a replay
	closeTryAgain    = websocket.StatusTryAgainLater   // 1013: too slow (send queue full) or too many connections
	codeConnections  = "rate_limit.connections"
	codeSubscription = "notifier.subscription"
	codeMessage      = "notifier.message"
)

// RequestError refuses a connection: before the upgrade it is answered as
// HTTP Status with the error envelope; after it (a token sent in the first
// message) it closes the WebSocket with CloseCode and the message.
type RequestError struct {
	Status    int
	Code      string
	Field     string
	Message   string // a format for Args
	Args      []any
	CloseCode websocket.StatusCode
}

func (e *RequestError) Error() string { return e.Text() }

// Text is the message with its arguments.
func (e *RequestError) Text() string { return fmt.Sprintf(e.Message, e.Args...) }

// closeReason fits a text into a close frame (123 bytes at most).
func closeReason(s string) string {
	if len(s) <= 120 {
		return s
	}
	return s[:117] + "..."
}
