// Package notifier pushes a customer's events and in-app notifications to
// signed-in clients over WebSocket (/notifier, DESIGN §7; docs/notifier.md).
//
// Fan-out goes through the store, never process memory: every API replica
// tails the events collection of each customer that has clients connected
// to it (one tail per customer and replica, inside the customer's tenant
// scope: no cross-customer query exists here), so an event recorded by
// any replica or worker reaches every client. A recording in this process
// wakes the tail at once (Notify); other replicas' events arrive within one
// poll interval.
package notifier

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"platform/kernel/auth"
	"platform/kernel/events"
	"platform/kernel/resource"
	"platform/kernel/store"
)

var _ events.Notifier = (*Hub)(nil)

// Verifier checks bearer tokens and API keys (auth.Verifier).
type Verifier interface {
	Verify(ctx context.Context, raw string) (*auth.Principal, error)
}

var _ Verifier = (*auth.Verifier)(nil)

// Deps are what the hub works with.
type Deps struct {
	Store    store.Store
	Verifier Verifier
	// Registry maps an event's plural to its resource's view right.
	Registry *resource.Registry
	Log      *slog.Logger
	// Metrics registers the hub's collectors; nil: none (tests' own hubs).
	Metrics prometheus.Registerer
}

// Options bound and pace the hub; zero fields take the defaults.
type Options struct {
	Poll     time.Duration // how often a tail reads new events (100ms)
	Sweep    time.Duration // how often it re-reads the lookback window (1s)
	Lookback time.Duration // how late an event may become visible (3s)
	// Heartbeat is the ping interval; the token is checked again on each.
	Heartbeat    time.Duration // 30s
	AuthTimeout  time.Duration // for the first message's token (5s)
	WriteTimeout time.Duration // one message to a client (10s)
	// QueueSize bounds the messages waiting per client (1,024): above
	// what one poll fans out (4 pages), so a burst never drops a client
	// that keeps up.
	QueueSize  int
	MaxMessage int64 // bytes of one client message (4096)
	// MaxSubscriptions bounds the patterns of one connection (20).
	MaxSubscriptions    int
	MaxConnsPerCustomer int // per replica (100)
	MaxConns            int // per replica (10,000)
	MaxReplay           int // events replayed on one resume (1,000)
	PageSize            int // events per store read (250)
	// Retention is how old a resume point may be (the event retention).
	Retention time.Duration
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	def(&o.Poll, 100*time.Millisecond)
	def(&o.Sweep, time.Second)
	def(&o.Lookback, 3*time.Second)
	def(&o.Heartbeat, 30*time.Second)
	def(&o.AuthTimeout, 5*time.Second)
	def(&o.WriteTimeout, 10*time.Second)
	def(&o.Retention, 720*time.Hour)
	defInt(&o.QueueSize, 1024)
	defInt(&o.MaxSubscriptions, 20)
	defInt(&o.MaxConnsPerCustomer, 100)
	defInt(&o.MaxConns, 10_000)
	defInt(&o.MaxReplay, 1000)
	defInt(&o.PageSize, 250)
	if o.MaxMessage <= 0 {
		o.MaxMessage = 4096
	}
	return o
}

// Hub serves the WebSocket clients of one process.
type Hub struct {
	deps    Deps
	opt     Options
	metrics *metrics

	ctx    context.Context // ends with Close: every tail and client stops
	cancel context.CancelFunc

	mu      sync.Mutex
	tails   map[string]*tail // by customer
	perCust map[string]int   // connections by customer
	total   int
	clients map[*client]struct{}
}

// New builds a hub; it starts work only when clients connect.
func New(d Deps, o Options) *Hub {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	h := &Hub{deps: d, opt: o.withDefaults(), tails: map[string]*tail{}, perCust: map[string]int{}, clients: map[*client]struct{}{}}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.metrics = newMetrics(h, d.Metrics)
	return h
}

// Notify wakes the tail of the event's customer (events.Notifier): an
// event recorded by this process reaches its clients without waiting for
// the next poll.
func (h *Hub) Notify(_ context.Context, e events.Event) {
	h.mu.Lock()
	t := h.tails[e.Customer]
	h.mu.Unlock()
	if t != nil {
		t.poke()
	}
}

// Close ends every connection with 1001 (going away): an HTTP server's
// Shutdown does not wait for hijacked connections.
func (h *Hub) Close() {
	h.mu.Lock()
	cs := make([]*client, 0, len(h.clients))
	for c := range h.clients {
		cs = append(cs, c)
	}
	h.mu.Unlock()
	for _, c := range cs {
		c.drop(closeGoingAway, "the server is shutting down; reconnect with lastEventId")
	}
	h.cancel()
}

// Stats are the hub's connection counts (tests, metrics).
type Stats struct{ Connections, Tails int }

// Stats counts connections and tails.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Stats{Connections: h.total, Tails: len(h.tails)}
}

// admit reserves a connection of customer within the limits.
func (h *Hub) admit(customer string) *RequestError {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx.Err() != nil || h.total >= h.opt.MaxConns {
		return &RequestError{Status: http.StatusServiceUnavailable, Code: resource.CodeUnavailable, CloseCode: closeTryAgain,
			Message: "this server has as many notifier connections as it accepts; retry shortly"}
	}
	if h.perCust[customer] >= h.opt.MaxConnsPerCustomer {
		return &RequestError{Status: http.StatusTooManyRequests, Code: codeConnections, CloseCode: closeTryAgain,
			Message: "the customer has as many notifier connections open on this server as it may (%d); close one first", Args: []any{h.opt.MaxConnsPerCustomer}}
	}
	h.total++
	h.perCust[customer]++
	return nil
}

// release gives back a reservation of admit.
func (h *Hub) release(customer string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total--
	if h.perCust[customer]--; h.perCust[customer] <= 0 {
		delete(h.perCust, customer)
	}
}

// join adds an admitted client to its customer's tail, starting the tail
// when it is the first.
func (h *Hub) join(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clients[c] = struct{}{}
	t := h.tails[c.customer]
	if t == nil {
		t = newTail(h, c.customer)
		h.tails[c.customer] = t
		go t.run()
	}
	t.add(c)
	c.tail = t
}

// leave removes a client; the last one of a customer stops its tail.
func (h *Hub) leave(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, c)
	t := c.tail
	if t == nil {
		return
	}
	if t.remove(c) == 0 && h.tails[c.customer] == t {
		delete(h.tails, c.customer)
		t.stop()
	}
}
