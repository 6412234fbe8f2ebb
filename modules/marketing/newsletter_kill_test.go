package marketing_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/cmd/platform/app"
	"platform/kernel/query"
	"platform/kernel/settings"
)

// maxKills is how many workers the kill test stops before letting one finish.
const maxKills = 12

// TestNewsletterWorkerKilledRepeatedlySendsEachOnce: the worker is
// stopped again and again in the middle of a send, mails in flight
// included (the SMTP server takes 50 ms to accept each), and a fresh
// worker takes over each time; in the end every recipient got exactly
// one mail, and the ledger, the mail logs and the counts agree.
func TestNewsletterWorkerKilledRepeatedlySendsEachOnce(t *testing.T) {
	t.Parallel()
	// A recipient whose mail was in flight when its worker stopped stays
	// claimed for the lease (2 minutes by default) before the last
	// worker may send it; 10 s keeps the wait short and still lets one
	// SMTP transaction take 5 s on a busy machine.
	e := newNewsEnv(t, 50, false, func(c *settings.Config) { c.NewsletterLease = 10 * time.Second })
	want := e.consumers(60)
	e.smtp.Hold(50 * time.Millisecond)
	id := e.create(map[string]any{"subject": "Again", "body": "x {{consumer.first_name}}", "scheduleAt": now()})["_id"].(string)

	// Twelve workers stopped mid-send are plenty to prove the point; going
	// on until the send ends took 166 stops (2.5 minutes) under -race in
	// CI, each a whole App started on the store.
	kills := 0
	deadline := time.Now().Add(4 * time.Minute)
	for kills < maxKills && e.get(id)["_status"] != "sent" && time.Now().Before(deadline) {
		stop := e.startWorker()
		time.Sleep(time.Duration(200+rand.IntN(500)) * time.Millisecond)
		stop()
		kills++
	}
	stop := e.startWorker() // the last one finishes whatever is left
	defer stop()
	doc := e.waitStatus(id, "sent", 2*time.Minute)
	t.Logf("%d worker stops during the send, %d mails", kills, len(e.smtp.Mails()))
	require.GreaterOrEqual(t, kills, 5, "the send outlived several workers")

	got := byRecipient(e.smtp.Mails())
	require.Len(t, got, len(want), "nobody skipped")
	for _, to := range want {
		require.Equal(t, 1, got[to], "exactly one mail to %s", to)
	}
	require.EqualValues(t, 60, doc["sent"])
	require.EqualValues(t, 60, doc["recipients"])
	require.Len(t, e.stored("maillogs", query.AllOf(query.Eq("newsletter", id), query.Eq("status", "sent"))), 60)
	require.Len(t, e.stored("newsletterledger", query.Eq("newsletter", id)), 60)
}

// startWorker runs a worker process of its own (its own App on the same
// store and queue) and returns what stops it.
func (e *newsEnv) startWorker() func() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := app.New(ctx, e.p.Config, e.p.Store, e.p.Temporal, e.p.Log)
	require.NoError(e.t, err)
	w := a.Worker(e.p.TaskQueue)
	require.NoError(e.t, w.Start())
	return func() { w.Stop(); _ = a.Close() }
}
