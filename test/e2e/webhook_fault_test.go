package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v84/github"
	"github.com/stretchr/testify/require"
)

const hookSecret = "e2e-webhook-secret-0123456789abcdef"

// hookReceiver records deliveries. While hold is set, a request is kept
// open until its client goes away (the sender died) or release is closed.
type hookReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	got     []delivered
	hold    atomic.Bool
	held    chan struct{} // closed when a request is being held
	release chan struct{}
}

type delivered struct {
	Delivery  string
	Signature string
	Body      []byte
	Consumer  string // data._id
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{held: make(chan struct{}), release: make(chan struct{})}
	var heldOnce sync.Once
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &msg)
		id, _ := msg.Data["_id"].(string)
		h.mu.Lock()
		h.got = append(h.got, delivered{r.Header.Get("X-Platform-Delivery"), r.Header.Get("X-Platform-Signature"), body, id})
		h.mu.Unlock()
		if h.hold.CompareAndSwap(true, false) {
			heldOnce.Do(func() { close(h.held) })
			select {
			case <-r.Context().Done():
			case <-h.release:
			}
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(func() { close(h.release); h.srv.Close() })
	return h
}

func (h *hookReceiver) deliveries() []delivered {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]delivered{}, h.got...)
}

func createWebhook(t *testing.T, c *cluster, tok, url string) {
	status, env, err := c.do("POST", "/automation/webhooks", tok, map[string]any{
		"name": "e2e", "url": url, "events": []string{"consumers.created"}, "secret": hookSecret})
	require.NoError(t, err)
	require.Equal(t, 201, status, "%v", env)
}

// TestWorkerKilledMidDeliveryDeliversAfterRestart: the worker dies while
// the receiver holds its POST; after a restart the receiver gets the event
// again, with the same delivery id and a valid signature.
func TestWorkerKilledMidDeliveryDeliversAfterRestart(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAPI()
	c.startWorker()
	rc := newHookReceiver(t)
	tok := c.token("faults", "automation.* crm.*")
	createWebhook(t, c, tok, rc.srv.URL+"/hook")
	rc.hold.Store(true)
	status, _, err := c.do("POST", "/crm/consumers", tok, map[string]any{"email": "held@example.com", "first_name": "Held"})
	require.NoError(t, err)
	require.Equal(t, 201, status)
	select {
	case <-rc.held:
	case <-time.After(60 * time.Second):
		t.Fatal("the delivery did not arrive")
	}
	c.worker.kill() // mid-delivery: the POST is open
	killed := time.Now()
	c.startWorker()

	// Temporal notices the lost attempt by its heartbeat time-out, then
	// retries after the policy's first wait (1 minute).
	deadline := time.Now().Add(3 * time.Minute)
	for len(rc.deliveries()) < 2 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	got := rc.deliveries()
	require.GreaterOrEqual(t, len(got), 2, "redelivered after the restart")
	t.Logf("redelivered %s after the worker was killed", time.Since(killed).Round(time.Second))
	require.Equal(t, got[0].Delivery, got[1].Delivery, "the same delivery id")
	require.Equal(t, got[0].Body, got[1].Body, "the same body")
	require.NoError(t, github.ValidateSignature(got[1].Signature, got[1].Body, []byte(hookSecret)))
}

// TestAPIKilledRightAfterAnsweringStillDelivers: clients create consumers
// while the API is SIGKILLed; every create it acknowledged reaches the
// webhook exactly once, through the notifier or, for the events it had no
// time to hand over, the worker's sweeper.
func TestAPIKilledRightAfterAnsweringStillDelivers(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAPI()
	c.startWorker()
	rc := newHookReceiver(t)
	tok := c.token("faults", "automation.* crm.*")
	createWebhook(t, c, tok, rc.srv.URL+"/hook")

	var acked sync.Map
	var n atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				status, env, err := c.do("POST", "/crm/consumers", tok, map[string]any{"email": fmt.Sprintf("k%d-%d@example.com", w, i)})
				if err != nil {
					return // the API is gone
				}
				if status == 201 {
					acked.Store(payloadID(env), true)
					if n.Add(1) >= 30 {
						c.api.kill() // right after an answer
					}
				}
			}
		}(w)
	}
	wg.Wait()
	total := 0
	acked.Range(func(any, any) bool { total++; return true })
	t.Logf("%d creates acknowledged before SIGKILL", total)

	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) && len(missing(rc, &acked)) > 0 {
		time.Sleep(250 * time.Millisecond)
	}
	require.Empty(t, missing(rc, &acked), "acknowledged creates whose event never arrived")
	time.Sleep(time.Second)
	seen := map[string]int{}
	for _, d := range rc.deliveries() {
		seen[d.Delivery]++
	}
	for id, k := range seen {
		require.Equal(t, 1, k, "delivery %s arrived %d times", id, k)
	}
}

func missing(rc *hookReceiver, acked *sync.Map) []string {
	got := map[string]bool{}
	for _, d := range rc.deliveries() {
		got[d.Consumer] = true
	}
	var out []string
	acked.Range(func(k, _ any) bool {
		if !got[k.(string)] {
			out = append(out, k.(string))
		}
		return true
	})
	return out
}
