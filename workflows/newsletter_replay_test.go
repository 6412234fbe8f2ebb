package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestRecordHistoriesNewsletter runs a newsletter's send on the real
// servers and writes its history to testdata/newsletter.json: scheduled
// a few seconds ahead, rescheduled once while waiting, then sent to two
// consumers and finished.
func TestRecordHistoriesNewsletter(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/newsletter.json")
	}
	mail := testenv.NewSMTPServer(t)
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.SMTPAddr, c.SMTPTLS, c.NewsletterRate = mail.Addr, "none", 100
	}})
	tok := p.Token("crm.*", "marketing.*")
	for _, e := range []string{"a@example.com", "b@example.com"} {
		require.Equal(t, 201, p.Do("POST", "/crm/consumers", tok, map[string]any{"email": e}).Status)
	}
	at := func(d time.Duration) string { return time.Now().Add(d).UTC().Format(time.RFC3339Nano) }
	r := p.Do("POST", "/marketing/newsletters", tok, map[string]any{"subject": "s", "body": "b", "scheduleAt": at(time.Hour)})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	id := r.Payload()["_id"].(string)
	time.Sleep(time.Second)
	require.Equal(t, 200, p.Do("PATCH", "/marketing/newsletters/"+id, tok, map[string]any{"scheduleAt": at(3 * time.Second)}).Status)
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	wid := contract.NewsletterWorkflowID(p.Customer.ID, id)
	require.NoError(t, p.Temporal.GetWorkflow(ctx, wid, "").Get(ctx, nil))
	require.Len(t, mail.Mails(), 2)
	writeHistory(ctx, t, p.Temporal, wid, filepath.Join("testdata", "newsletter.json"))
}
