package automation_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v84/github"
	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// hookSpec is a webhook the test creates, by receiver path.
type hookSpec struct {
	path    string
	events  []string
	secret  string
	headers map[string]any
	active  bool
}

func createHook(t *testing.T, p *testenv.Platform, tok string, rc *receiver, h hookSpec) string {
	body := map[string]any{"name": h.path, "url": rc.url(h.path), "events": h.events, "active": h.active}
	if h.secret != "" {
		body["secret"] = h.secret
	}
	if h.headers != nil {
		body["headers"] = h.headers
	}
	r := p.Do("POST", "/automation/webhooks", tok, body)
	require.Equal(t, 201, r.Status, string(r.Body))
	return r.Payload()["_id"].(string)
}

// byEvent groups a receiver path's requests by X-Platform-Event.
func byEvent(got []received) map[string][]received {
	out := map[string][]received{}
	for _, g := range got {
		e := g.Header.Get(webhook.HeaderEvent)
		out[e] = append(out[e], g)
	}
	return out
}

// TestEventsReachEveryMatchingWebhookOnce runs the whole path on the real
// servers: API write, stored event, dispatch workflow, delivery workflows,
// signed POSTs that an independent verifier (go-github for
// X-Platform-Signature, the npm standardwebhooks package for the Standard
// Webhooks headers) accepts, and nothing delivered twice.
func TestEventsReachEveryMatchingWebhookOnce(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	p.CheckOpenAPI("automation")
	rc := newReceiver(t)
	tok := p.Token("automation.*", "crm.*")
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	stdSecret := "whsec_" + base64.StdEncoding.EncodeToString(key)
	ids := map[string]string{}
	for _, h := range []hookSpec{
		{path: "/plain", events: []string{"consumers.*"}, secret: secret, headers: map[string]any{"X-Tenant": "acme"}, active: true},
		{path: "/standard", events: []string{"consumers.created", "consumers.updated"}, secret: stdSecret, active: true},
		{path: "/tasks", events: []string{"tasks.*"}, active: true},
		{path: "/inactive", events: []string{"*"}, active: false},
		{path: "/all", events: []string{"*"}, active: true},
	} {
		ids[h.path] = createHook(t, p, tok, rc, h)
	}

	r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "ada@example.com", "first_name": "Ada"})
	require.Equal(t, 201, r.Status)
	cid := r.Payload()["_id"].(string)
	require.Equal(t, 200, p.Do("PATCH", "/crm/consumers/"+cid, tok, map[string]any{"first_name": "Ada L."}).Status)

	for _, path := range []string{"/plain", "/standard", "/all"} {
		waitConsumerEvents(t, rc, path)
	}
	waitDispatched(t, p, cid)
	time.Sleep(time.Second) // anything duplicated would show now
	for _, path := range []string{"/plain", "/standard", "/all"} {
		got := byEvent(rc.requests(path))
		require.Len(t, got["consumers.created"], 1, path)
		require.Len(t, got["consumers.updated"], 1, path)
		checkBody(t, p, got["consumers.created"][0], "consumers.created", cid, "Ada")
		checkBody(t, p, got["consumers.updated"][0], "consumers.updated", cid, "Ada L.")
	}
	require.Empty(t, rc.requests("/tasks"), "not subscribed")
	require.Empty(t, rc.requests("/inactive"), "inactive")

	plain := byEvent(rc.requests("/plain"))["consumers.created"][0]
	std := byEvent(rc.requests("/standard"))["consumers.created"][0]
	all := byEvent(rc.requests("/all"))["consumers.created"][0]
	checkSignatures(t, plain, std, all, stdSecret)
	require.Equal(t, "acme", plain.Header.Get("X-Tenant"), "the webhook's own headers are sent")
	checkDeliveryIDs(t, p, ids["/plain"], plain)
	checkHistory(t, p, tok, ids["/plain"])
	checkNoRedispatch(t, p, rc, plain)
}

func waitConsumerEvents(t *testing.T, rc *receiver, path string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		g := byEvent(rc.requests(path))
		if len(g["consumers.created"]) > 0 && len(g["consumers.updated"]) > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not receive consumers.created and consumers.updated", path)
}

// waitDispatched waits until the consumer's events are marked dispatched.
func waitDispatched(t *testing.T, p *testenv.Platform, cid string) {
	t.Helper()
	require.Eventually(t, func() bool {
		evs, err := p.Store.Collection(events.Collection).Find(p.Ctx(), store.FindOptions{Filter: query.Eq("data._id", cid)})
		if err != nil || len(evs) != 2 {
			return false
		}
		for _, e := range evs {
			if e["dispatched"] != true {
				return false
			}
		}
		return true
	}, 30*time.Second, 100*time.Millisecond)
}

// checkBody: { event, timestamp, customer, data } with the consumer's _id,
// email and first_name (spec: Outbound webhooks).
func checkBody(t *testing.T, p *testenv.Platform, r received, event, cid, first string) {
	t.Helper()
	var b struct {
		Event     string         `json:"event"`
		Timestamp string         `json:"timestamp"`
		Customer  string         `json:"customer"`
		Data      map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &b))
	require.Equal(t, event, b.Event)
	ts, err := time.Parse(time.RFC3339, b.Timestamp)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), ts, time.Minute)
	require.True(t, strings.HasSuffix(b.Timestamp, "Z"), "UTC")
	require.Equal(t, p.Customer.ID, b.Customer)
	require.Equal(t, cid, b.Data["_id"])
	require.Equal(t, "ada@example.com", b.Data["email"])
	require.Equal(t, first, b.Data["first_name"])
	require.Equal(t, event, r.Header.Get(webhook.HeaderEvent))
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
}

func checkSignatures(t *testing.T, plain, std, unsigned received, stdSecret string) {
	t.Helper()
	require.NoError(t, github.ValidateSignature(plain.Header.Get(webhook.HeaderSignature), plain.Body, []byte(secret)))
	require.NoError(t, github.ValidateSignature(std.Header.Get(webhook.HeaderSignature), std.Body, []byte(stdSecret)))
	require.Empty(t, unsigned.Header.Get(webhook.HeaderSignature))
	require.Empty(t, unsigned.Header.Get(webhook.HeaderSWSig))
	require.NotEmpty(t, unsigned.Header.Get(webhook.HeaderSWID))

	tampered := plain
	tampered.Body = append(append([]byte{}, plain.Body...), ' ')
	res := verifyStandardWebhooks(t, []swCase{
		swCaseOf(plain, "whsec_"+base64.StdEncoding.EncodeToString([]byte(secret)), false),
		swCaseOf(plain, secret, true),
		swCaseOf(std, stdSecret, false),
		swCaseOf(tampered, secret, true),
		swCaseOf(plain, "whsec_"+base64.StdEncoding.EncodeToString([]byte("another secret of 32+ characters..")), false),
	})
	require.True(t, res[0].OK, "plain secret as whsec_+base64: %s", res[0].Error)
	require.True(t, res[1].OK, "plain secret as a raw key: %s", res[1].Error)
	require.True(t, res[2].OK, "whsec_ secret as is: %s", res[2].Error)
	require.False(t, res[3].OK, "a changed body fails")
	require.False(t, res[4].OK, "another secret fails")
}

// checkDeliveryIDs: X-Platform-Delivery = webhook-id = <event>-<webhook>.
// A delivered first attempt costs no workflow (the dispatcher made it).
func checkDeliveryIDs(t *testing.T, p *testenv.Platform, hookID string, r received) {
	t.Helper()
	did := r.Header.Get(webhook.HeaderDelivery)
	require.Equal(t, did, r.Header.Get(webhook.HeaderSWID))
	eventID, wh, ok := strings.Cut(did, "-")
	require.True(t, ok)
	require.Equal(t, hookID, wh)
	_, err := p.Temporal.DescribeWorkflowExecution(context.Background(), contract.DeliveryWorkflowID(eventID, hookID, 0), "")
	require.Error(t, err, "no delivery workflow")
}

// checkHistory: GET /webhooks/:id/deliveries lists the attempts.
func checkHistory(t *testing.T, p *testenv.Platform, tok, hookID string) {
	t.Helper()
	list := p.Do("GET", "/automation/webhooks/"+hookID+"/deliveries?eventName=consumers.created", tok, nil).List()
	require.Len(t, list, 1)
	d := list[0]
	require.Equal(t, webhook.StatusDelivered, d["status"])
	require.EqualValues(t, http.StatusNoContent, d["statusCode"])
	require.EqualValues(t, 1, d["attempt"])
	require.EqualValues(t, 0, d["round"])
	require.Equal(t, hookID, d["webhook"])
	require.Len(t, p.Do("GET", "/automation/webhooks/"+hookID+"/deliveries", tok, nil).List(), 2)
}

// checkNoRedispatch: the event is marked dispatched, so no sweep (of this
// or another worker) takes it again, and it was delivered once.
func checkNoRedispatch(t *testing.T, p *testenv.Platform, rc *receiver, r received) {
	t.Helper()
	eventID, _, _ := strings.Cut(r.Header.Get(webhook.HeaderDelivery), "-")
	require.Eventually(t, func() bool {
		ev, err := p.Store.Collection(events.Collection).Get(p.Ctx(), eventID)
		return err == nil && ev["dispatched"] == true && ev["claimBy"] == nil
	}, 10*time.Second, 20*time.Millisecond, "the event is marked dispatched and its claim dropped")
	time.Sleep(500 * time.Millisecond)
	require.Len(t, byEvent(rc.requests("/plain"))["consumers.created"], 1)
}

// TestSweeperDispatchesEventsTheNotifierMissed: an event stored by an API
// process that died before it could start the dispatch is delivered by the
// worker's sweeper.
func TestSweeperDispatchesEventsTheNotifierMissed(t *testing.T) {
	t.Parallel()
	p := platformWithWorker(t, testenv.Options{})
	rc := newReceiver(t)
	tok := p.Token("automation.*")
	createHook(t, p, tok, rc, hookSpec{path: "/hook", events: []string{"consumers.created"}, secret: secret, active: true})
	eventID := store.NewID()
	require.NoError(t, p.Store.Collection(events.Collection).Insert(p.Ctx(), store.Doc{
		"_id": eventID, "name": "consumers.created", "timestamp": time.Now().UTC().Add(-time.Minute).Truncate(time.Millisecond),
		"data": store.Doc{"_id": store.NewID(), "email": "swept@example.com", "first_name": "Swept"}, "dispatched": false,
	}))
	got := rc.waitFor(t, "/hook", 1, 40*time.Second)
	require.True(t, strings.HasPrefix(got[0].Header.Get(webhook.HeaderDelivery), eventID+"-"))
	require.Eventually(t, func() bool {
		d, err := p.Store.Collection(events.Collection).Get(p.Ctx(), eventID)
		return err == nil && d["dispatched"] == true
	}, 20*time.Second, 100*time.Millisecond)
}
