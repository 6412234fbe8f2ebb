package marketing_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
)

// consumers creates n consumers c<i>@example.com.
func (e *newsEnv) consumers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%03d@example.com", i)
		e.consumer(out[i], fmt.Sprintf("C%d", i))
	}
	return out
}

// TestNewsletterCancelMidSend: cancelling a running send stops it before
// its next mail; what was sent stays sent and nothing more goes out.
func TestNewsletterCancelMidSend(t *testing.T) {
	t.Parallel()
	e := newNewsEnv(t, 4, true)
	e.consumers(30)
	id := e.create(map[string]any{"subject": "Slow", "body": "x", "scheduleAt": now()})["_id"].(string)
	e.smtp.WaitFor(3, 30*time.Second)
	r := e.act(id, "cancel", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "cancelled", r.Payload()["_status"])
	time.Sleep(3 * time.Second) // longer than the page's status check, and several mails at 4/s
	atStop := len(e.smtp.Mails())
	time.Sleep(2 * time.Second)
	require.Equal(t, atStop, len(e.smtp.Mails()), "no mail after the cancel took effect")
	require.Less(t, atStop, 30)
	doc := e.get(id)
	require.Equal(t, "cancelled", doc["_status"])
	require.Len(t, e.events("newsletters.cancelled"), 1)
	require.Empty(t, e.events("newsletters.sent"))
	sent := e.stored("maillogs", query.AllOf(query.Eq("newsletter", id), query.Eq("status", "sent")))
	require.Len(t, sent, atStop, "every mail that went out is logged sent")
}

// TestNewsletterBacksOffOn4xx: a server answering 421 and 454 is retried
// later instead of losing those mails: everyone gets exactly one.
func TestNewsletterBacksOffOn4xx(t *testing.T) {
	t.Parallel()
	e := newNewsEnv(t, 1000, true)
	want := e.consumers(5)
	e.smtp.FailNext(2, 421)
	id := e.create(map[string]any{"subject": "Busy", "body": "x", "scheduleAt": now()})["_id"].(string)
	time.Sleep(500 * time.Millisecond)
	e.smtp.FailNext(1, 454)
	doc := e.waitStatus(id, "sent", 60*time.Second)
	got := byRecipient(e.smtp.Mails())
	require.Len(t, got, len(want))
	for _, to := range want {
		require.Equal(t, 1, got[to], to)
	}
	require.EqualValues(t, 5, doc["sent"])
	require.EqualValues(t, 0, doc["failed"])
	require.Len(t, e.stored("maillogs", query.AllOf(query.Eq("newsletter", id), query.Eq("status", "sent"))), 5)
}

// TestNewsletterRecipientRefused: a 5xx for one recipient fails that
// recipient (its mail log bounced with the reason) and the send goes on.
func TestNewsletterRecipientRefused(t *testing.T) {
	t.Parallel()
	e := newNewsEnv(t, 1000, true)
	e.consumers(3)
	e.smtp.Reject("c001@example.com", 550)
	id := e.create(map[string]any{"subject": "x", "body": "x", "scheduleAt": now()})["_id"].(string)
	doc := e.waitStatus(id, "sent", 30*time.Second)
	require.EqualValues(t, 2, doc["sent"])
	require.EqualValues(t, 1, doc["failed"])
	require.EqualValues(t, 3, doc["recipients"])
	logs := e.stored("maillogs", query.AllOf(query.Eq("newsletter", id), query.Eq("to", "c001@example.com")))
	require.Len(t, logs, 1)
	require.Equal(t, "bounced", logs[0]["status"])
	require.Contains(t, logs[0]["bounceReason"], "550")
}
