package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// TestWorkerSIGKILLedMidSendSkipsNoOne: the worker process is SIGKILLed
// again and again while a newsletter is being sent, with mails in flight.
// No recipient is skipped. The test SMTP server keeps a message once it
// has read it and answers 250 30 ms later, even to a client that died
// meanwhile (RFC 1047's duplicate-message window, widened on purpose):
// a kill that lands there resends that one mail after the claim lease,
// with the same Message-ID (docs/newsletters.md). The test allows at
// most one such resend per kill and checks the Message-ID; local runs
// saw 3 and 2 resends in 4 kills. Two kills keep CI short: each costs
// the page activity's heartbeat time-out (30 s) before the send goes on,
// and the in-process test (TestNewsletterWorkerKilledRepeatedlySendsEachOnce)
// stops workers a dozen times.
func TestWorkerSIGKILLedMidSendSkipsNoOne(t *testing.T) {
	t.Parallel()
	mail := testenv.NewSMTPServer(t)
	mail.Hold(30 * time.Millisecond)
	c := newCluster(t)
	c.startAPI()
	env := append(c.env(), "PLATFORM_SMTP_ADDR="+mail.Addr, "PLATFORM_SMTP_TLS=none", "PLATFORM_NEWSLETTER_RATE=20",
		"PLATFORM_NEWSLETTER_LEASE=6s") // a killed worker's claims lapse in seconds, not minutes
	startWorker := func() {
		c.worker = c.run("worker", nil, env)
		w := c.worker
		c.waitFor(w, "worker", func() bool { return strings.Contains(w.stderr.String(), "worker polling") })
	}
	startWorker()
	tok := c.token("news", "crm.* marketing.*")
	const n = 40
	for i := range n {
		status, body, err := c.do("POST", "/crm/consumers", tok, map[string]any{"email": fmt.Sprintf("k%02d@example.com", i)})
		require.NoError(t, err)
		require.Equal(t, 201, status, "%v", body)
	}
	status, body, err := c.do("POST", "/marketing/newsletters", tok, map[string]any{"subject": "Kill", "body": "x",
		"scheduleAt": time.Now().UTC().Format(time.RFC3339)})
	require.NoError(t, err)
	require.Equal(t, 201, status, "%v", body)
	id := body["payload"].(map[string]any)["_id"].(string)

	kills := 0
	for kills < 2 && len(mail.Mails()) < n {
		mail.WaitFor(len(mail.Mails())+1, time.Minute) // the send is under way again
		time.Sleep(time.Duration(100+rand.IntN(300)) * time.Millisecond)
		c.worker.kill()
		kills++
		startWorker()
	}
	deadline := time.Now().Add(6 * time.Minute)
	for time.Now().Before(deadline) {
		_, body, err = c.do("GET", "/marketing/newsletters/"+id, tok, nil)
		require.NoError(t, err)
		if body["payload"].(map[string]any)["_status"] == "sent" {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	require.Equal(t, "sent", body["payload"].(map[string]any)["_status"], "%v", body)

	ids := map[string]map[string]bool{} // recipient -> Message-IDs
	count := map[string]int{}
	for _, m := range mail.Mails() {
		to := m.To[0]
		count[to]++
		if ids[to] == nil {
			ids[to] = map[string]bool{}
		}
		ids[to][m.Header.Get("Message-Id")] = true
	}
	require.Len(t, count, n, "no recipient skipped")
	resent := 0
	for to, k := range count {
		resent += k - 1
		require.Len(t, ids[to], 1, "a resend to %s keeps the Message-ID", to)
	}
	t.Logf("%d SIGKILLs, %d mails to %d recipients, %d resent in the crash window", kills, len(mail.Mails()), n, resent)
	require.LessOrEqual(t, resent, kills)
}
