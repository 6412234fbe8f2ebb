package notifier

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"

	"platform/kernel/auth"
	"platform/kernel/events"
	"platform/kernel/tenant"
)

// outgoing is one message waiting for a client; id is the event's, empty
// for the hub's own answers.
type outgoing struct {
	id string
	b  []byte
}

// client is one WebSocket connection.
type client struct {
	hub      *Hub
	conn     *websocket.Conn
	customer string
	tail     *tail
	queue    chan outgoing
	lastID   string // resume point, empty for none

	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once

	mu        sync.Mutex
	token     string
	principal *auth.Principal
	patterns  []string
}

func newClient(h *Hub, conn *websocket.Conn, s *session) *client {
	ctx, cancel := context.WithCancel(h.ctx)
	return &client{hub: h, conn: conn, customer: s.principal.Customer, queue: make(chan outgoing, h.opt.QueueSize),
		lastID: s.lastID, ctx: ctx, cancel: cancel, token: s.token, principal: s.principal, patterns: s.patterns}
}

// wants reports whether the client gets the item: an in-app notification
// when it is addressed to the signed-in user (never to an API key), an
// event when a subscription selects it and the token may view its
// resource.
func (c *client) wants(it *item) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it.name == events.InAppName {
		return it.user != "" && c.principal.APIKey == "" && c.principal.User == it.user
	}
	return events.Matches(c.patterns, it.name) && c.principal.Allows(c.hub.viewRight(it.name))
}

// enqueue offers a message without waiting: a client whose queue is full
// is too slow and is dropped (1013), so it never holds up the others.
func (c *client) enqueue(m outgoing) {
	select {
	case c.queue <- m:
	default:
		c.drop(closeTryAgain, "too slow: the send queue is full; reconnect with lastEventId")
	}
}

// drop ends the connection once with code and reason. Closing waits for
// the client's answer (at most 5 seconds, the library's bound), so it runs
// beside the caller.
func (c *client) drop(code websocket.StatusCode, reason string) {
	c.once.Do(func() {
		c.hub.metrics.closed(code)
		c.cancel()
		go func() { _ = c.conn.Close(code, closeReason(reason)) }()
	})
}

// run serves the connection until it ends: the writer in its own
// goroutine, the reader here.
func (c *client) run() {
	c.hub.join(c)
	defer c.hub.leave(c)
	go c.writeLoop()
	c.readLoop()
}

// writeLoop sends the ready message, the replay, then queued messages and
// heartbeats.
func (c *client) writeLoop() {
	if !c.write(c.readyMessage()) {
		return
	}
	replayed, ok := c.replay()
	if !ok {
		return
	}
	hb := time.NewTicker(c.hub.opt.Heartbeat)
	defer hb.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case m := <-c.queue:
			if replayed[m.id] {
				continue // sent by the replay already
			}
			if !c.write(m.b) {
				return
			}
		case <-hb.C:
			if !c.heartbeat() {
				return
			}
		}
	}
}

// write sends one message within WriteTimeout; a client that does not
// take it in time is dropped as too slow.
func (c *client) write(b []byte) bool {
	if c.ctx.Err() != nil {
		return false // dropped meanwhile
	}
	// Not c.ctx: a cancelled write makes the library drop the connection
	// before drop's close code goes out.
	ctx, cancel := context.WithTimeout(context.Background(), c.hub.opt.WriteTimeout)
	defer cancel()
	err := c.conn.Write(ctx, websocket.MessageText, b)
	switch {
	case err == nil:
		c.hub.metrics.sent.Inc()
		return true
	case errors.Is(err, context.DeadlineExceeded):
		c.drop(closeTryAgain, "too slow: a message was not taken within the write time-out; reconnect with lastEventId")
	default:
		c.drop(closeGoingAway, "connection lost")
	}
	return false
}

// heartbeat checks the token again (expiry, revocation) and pings.
func (c *client) heartbeat() bool {
	c.mu.Lock()
	token := c.token
	c.mu.Unlock()
	if _, err := c.hub.deps.Verifier.Verify(c.ctx, token); errors.Is(err, auth.ErrInvalidToken) {
		c.drop(closePolicy, "the token expired or was revoked; reconnect with a new one")
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.hub.opt.WriteTimeout)
	defer cancel()
	if err := c.conn.Ping(ctx); err != nil {
		c.drop(closeGoingAway, "no answer to a ping")
		return false
	}
	return true
}

// replay sends what the client missed since lastEventId (at least once:
// events recorded within Lookback before it are sent again, since another
// replica's event of that time may sort before it and still be new to the
// client). It answers the ids it sent.
func (c *client) replay() (map[string]bool, bool) {
	if c.lastID == "" {
		return nil, true
	}
	sent := map[string]bool{}
	if t, _ := idTime(c.lastID); time.Since(t) > c.hub.opt.Retention {
		return sent, c.write(encode(problemMessage{Type: TypeResync, Code: "notifier.resume_expired",
			Message: "lastEventId is older than the event retention; reload what you show and continue from here"}))
	}
	ctx := tenant.WithCustomer(c.ctx, c.customer)
	from := before(c.lastID, c.hub.opt.Lookback)
	for read := 0; ; {
		items, err := readAfter(ctx, c.hub.deps.Store, c.customer, from, c.hub.opt.PageSize)
		if err != nil {
			c.drop(closeInternal, "the events could not be read; reconnect with lastEventId")
			return nil, false
		}
		for i := range items {
			if it := &items[i]; it.id != c.lastID && c.wants(it) {
				if !c.write(it.msg) {
					return nil, false
				}
				sent[it.id] = true
			}
		}
		if read += len(items); len(items) < c.hub.opt.PageSize {
			return sent, true
		}
		if read >= c.hub.opt.MaxReplay {
			return sent, c.write(encode(problemMessage{Type: TypeResync, Code: "notifier.resume_too_far",
				Message: "more events were missed than one resume replays; reload what you show and continue from here"}))
		}
		from = items[len(items)-1].id
	}
}

func (c *client) readyMessage() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return encode(readyMessage{Type: TypeReady, Customer: c.customer, Subscriptions: c.patterns,
		Heartbeat: int(c.hub.opt.Heartbeat / time.Second)})
}
