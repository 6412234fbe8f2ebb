package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"platform/api/notifier"
	"platform/kernel/events"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/test/testenv"
)

// notifierClients is the number of WebSocket clients of the fan-out.
const notifierClients = 500

// BenchmarkNotifier measures the notifier's fan-out against webhook
// delivery of the same events in one run (issue 19): 20 writers create
// b.N consumers through the API; 500 WebSocket clients of the customer,
// subscribed to consumers.*, each receive every event, and one webhook on
// consumers.created receives them too. Reported: events/s and messages/s
// to the 500 clients and the latency from a write's start to each receipt
// (p50, p99 over every client and event), and the same for the webhook.
// Clients, platform and receiver share the machine's cores.
//
// Run: make bench-notifier (or go test -run '^$' -bench Notifier -benchtime 1000x ./test/bench/).
func BenchmarkNotifier(b *testing.B) {
	p := testenv.NewPlatform(b, testenv.Options{Store: "sqlite", Worker: true, Configure: func(c *settings.Config) {
		c.OutboundAllow = []string{"127.0.0.1"}
	}})
	rc := newBenchReceiver(b)
	tok := p.Token("automation.*", "crm.*")
	createBenchHook(b, p, tok, rc.srv.URL+"/notifier-bench", true)
	// The app's hub admits 100 connections per customer; this one 500
	// more, woken by the platform's own recordings as the app's is.
	hub := notifier.New(notifier.Deps{Store: p.Store, Verifier: p.Verifier, Registry: p.Registry, Log: p.Log},
		notifier.Options{MaxConnsPerCustomer: notifierClients + 10})
	b.Cleanup(hub.Close)
	p.MountNotifier("/notifier-bench", hub)
	p.Events.Notifier = wakeBoth{p.Events.Notifier, hub}
	fan := newFanout(b, p.URL+"/notifier-bench?events=consumers.*", p.Token("crm.consumers.view"))
	b.Run("fanout-500-api", func(b *testing.B) { benchFanout(b, rc, fan, apiWrite(p, tok)) })
	b.Run("fanout-500-recorded", func(b *testing.B) { benchFanout(b, rc, fan, recordWrite(p)) })
}

// apiWrite creates a consumer through the API.
func apiWrite(p *testenv.Platform, tok string) func(email string) bool {
	return func(email string) bool {
		return p.Do("POST", "/crm/consumers", tok, map[string]any{"email": email, "first_name": "Bench"}).Status == http.StatusCreated
	}
}

// recordWrite records the event alone, as the record service does after a
// write: the fan-out's ceiling without the API and the store write.
func recordWrite(p *testenv.Platform) func(email string) bool {
	return func(email string) bool {
		return p.Events.Record(p.Ctx(), "consumers.created", map[string]any{"_id": store.NewID(), "email": email, "first_name": "Bench"}) == nil
	}
}

// wakeBoth passes each recorded event to both notifiers.
type wakeBoth [2]events.Notifier

func (w wakeBoth) Notify(ctx context.Context, e events.Event) {
	for _, n := range w {
		if n != nil {
			n.Notify(ctx, e)
		}
	}
}

// fanout is the 500 clients: each receipt is noted against the write's
// start, keyed by the consumer's email.
type fanout struct {
	mu    sync.Mutex
	start map[string]time.Time
	lat   []time.Duration
	last  time.Time
	got   atomic.Int64
}

func newFanout(b *testing.B, url, token string) *fanout {
	f := &fanout{start: map[string]time.Time{}}
	wsURL := "ws" + strings.TrimPrefix(url, "http")
	for i := 0; i < notifierClients; i++ {
		c, _, err := websocket.Dial(context.Background(), wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
		if err != nil {
			b.Fatalf("client %d: %v", i, err)
		}
		b.Cleanup(func() { _ = c.CloseNow() })
		go f.read(c)
	}
	return f
}

func (f *fanout) read(c *websocket.Conn) {
	for {
		_, data, err := c.Read(context.Background())
		if err != nil {
			return
		}
		var m struct {
			Type string `json:"type"`
			Data struct {
				Email string `json:"email"`
			} `json:"data"`
		}
		if json.Unmarshal(data, &m) == nil && m.Type == notifier.TypeEvent {
			f.note(m.Data.Email)
		}
	}
}

func (f *fanout) note(email string) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if t0, ok := f.start[email]; ok {
		f.lat = append(f.lat, now.Sub(t0))
		f.last = now
		f.got.Add(1)
	}
}

// reset forgets earlier rounds.
func (f *fanout) reset() {
	f.mu.Lock()
	f.start, f.lat, f.last = map[string]time.Time{}, nil, time.Time{}
	f.mu.Unlock()
	f.got.Store(0)
}

func (f *fanout) expect(email string, at time.Time) {
	f.mu.Lock()
	f.start[email] = at
	f.mu.Unlock()
}

// benchFanout writes b.N consumers and waits for every receipt by the
// clients and by the webhook.
func benchFanout(b *testing.B, rc *benchReceiver, f *fanout, write func(email string) bool) {
	rc.reset()
	f.reset()
	tag := round.Add(1)
	var failed atomic.Int64
	b.ResetTimer()
	begin := time.Now()
	parallel(b.N, func(i int) {
		email := fmt.Sprintf("nf%d-%d@example.com", tag, i)
		rc.expect(email)
		f.expect(email, time.Now())
		if !write(email) {
			failed.Add(1)
		}
	})
	if failed.Load() > 0 {
		b.Fatalf("%d writes failed", failed.Load())
	}
	ws := f.await(b, b.N*notifierClients, begin)
	hook := rc.await(b, b.N, begin, "deliveries/s")
	fmt.Printf("notifier, %d clients: %.1f events/s (%.0f messages/s), p50 %.1f ms, p99 %.1f ms from write to receipt\n",
		notifierClients, ws.rate/notifierClients, ws.rate, ws.p50, ws.p99)
	fmt.Printf("webhook, same events: %.1f deliveries/s, p50 %.1f ms, p99 %.1f ms (webhook p99 / notifier p99 = %.2f)\n",
		hook.rate, hook.p50, hook.p99, hook.p99/ws.p99)
}

// await waits for n receipts and reports messages/s and latency.
func (f *fanout) await(b *testing.B, n int, begin time.Time) result {
	deadline := time.Now().Add(10 * time.Minute)
	for f.got.Load() < int64(n) {
		if time.Now().After(deadline) {
			b.Fatalf("received %d of %d messages within 10 minutes", f.got.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return report(b, f.lat, f.last.Sub(begin), "messages/s")
}
