package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/coder/websocket"

	"platform/kernel/auth"
)

// readLoop handles the client's messages until the connection ends. A
// message larger than MaxMessage closes it with 1009 (the library's
// answer); a message it cannot use gets an error message and the
// connection stays open.
func (c *client) readLoop() {
	defer c.cancel()
	for {
		// Not c.ctx: cancelling a read makes the library close with 1008
		// at once, before drop's own code goes out. A drop's Close ends
		// this read instead.
		typ, b, err := c.conn.Read(context.Background())
		if err != nil {
			if websocket.CloseStatus(err) == -1 {
				c.drop(closeGoingAway, "connection lost")
			}
			return
		}
		if typ != websocket.MessageText {
			c.problem(codeMessage, "", "messages are JSON text")
			continue
		}
		c.handle(b)
	}
}

func (c *client) handle(b []byte) {
	var m clientMessage
	if err := json.Unmarshal(b, &m); err != nil {
		c.problem(codeMessage, "", "the message is not a JSON object of the documented form")
		return
	}
	switch m.Type {
	case TypePing:
		c.enqueue(outgoing{b: encode(map[string]string{"type": TypePong})})
	case TypeSubscribe:
		c.subscribe(m.Events)
	case TypeUnsubscribe:
		c.unsubscribe(m.Events)
	case TypeAuth:
		c.reauth(m.Token)
	default:
		c.problem(codeMessage, "type", "type must be subscribe, unsubscribe, ping or auth")
	}
}

// subscribe adds patterns after checking them and the rights they need.
func (c *client) subscribe(add []string) {
	c.mu.Lock()
	have, p := c.patterns, c.principal
	c.mu.Unlock()
	if len(add) == 0 {
		c.problem(codeSubscription, "events", "events needs at least one event name or wildcard such as consumers.* or *")
		return
	}
	if err := c.hub.checkPatterns(have, add); err != nil {
		c.problem(err.Code, err.Field, err.Text())
		return
	}
	if err := c.hub.checkRights(p, add); err != nil {
		c.problem(err.Code, err.Field, err.Text())
		return
	}
	c.mu.Lock()
	c.patterns = union(c.patterns, add)
	c.mu.Unlock()
	c.subscribed()
}

func (c *client) unsubscribe(remove []string) {
	c.mu.Lock()
	c.patterns = slices.DeleteFunc(slices.Clone(c.patterns), func(p string) bool { return slices.Contains(remove, p) })
	c.mu.Unlock()
	c.subscribed()
}

func (c *client) subscribed() {
	c.mu.Lock()
	list := slices.Clone(c.patterns)
	c.mu.Unlock()
	c.enqueue(outgoing{b: encode(subscribedMessage{Type: TypeSubscribed, Subscriptions: list})})
}

// reauth replaces the token before it expires: a token of the same
// customer and subject; its rights apply from the next event on.
func (c *client) reauth(token string) {
	p, err := c.hub.deps.Verifier.Verify(c.ctx, token)
	switch {
	case errors.Is(err, auth.ErrInvalidToken):
		c.drop(closePolicy, "the access token is invalid, expired or revoked")
		return
	case err != nil:
		c.problem("dependency.unavailable", "token", "token verification is unavailable; the connection keeps its token")
		return
	}
	c.mu.Lock()
	same := p.Customer == c.principal.Customer && p.Subject == c.principal.Subject
	if same {
		c.principal, c.token = p, token
	}
	c.mu.Unlock()
	if !same {
		c.drop(closePolicy, "a new token must be of the same customer and subject")
		return
	}
	c.enqueue(outgoing{b: c.readyMessage()})
}

func (c *client) problem(code, field, msg string) {
	c.enqueue(outgoing{b: encode(problemMessage{Type: TypeError, Code: code, Field: field, Message: msg})})
}
