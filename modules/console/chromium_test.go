package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
	chromium "platform/test/browser"
	"platform/test/testenv"
	"platform/test/workflowtest"
)

// inChromium drives the console in headless Chromium: sign in through the
// platform's screens, browse consumers, create one with a validation error
// shown next to its field and then fixed, re-run a parked webhook delivery
// and see it delivered, open a pipeline run with its steps and its link
// into the Temporal UI.
func inChromium(t *testing.T, p *testenv.Platform) {
	ctx := chromium.New(t)
	retryID := parkedDelivery(t, p)
	runID := pipelineRun(t, p)

	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, steps...))
	}
	// text reads an element's text; pages of work still running reload
	// themselves every 2 s, so a read that lost its node to a reload is
	// tried again.
	text := func(sel string) string {
		t.Helper()
		var v string
		var err error
		for try := 0; try < 10; try++ {
			if v, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel))); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		require.NoError(t, err)
		return strings.TrimSpace(v)
	}
	do(chromedp.Navigate(p.URL+"/console/"), chromedp.WaitVisible(chromedp.ID("start-signin")), chromedp.Click(chromedp.ID("start-signin")),
		chromedp.WaitVisible(chromedp.ID("email")), chromedp.SendKeys(chromedp.ID("email"), p.Admin.Email),
		chromedp.SendKeys(chromedp.ID("password"), adminPassword), chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID("approve")), chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("nav")))
	screenshot(t, ctx, "home.png")
	require.Equal(t, p.Admin.Email, text("#who"))

	// Browse consumers; create one, first with an e-mail the API refuses.
	do(chromedp.Click(chromedp.ID("nav-consumers")), chromedp.WaitVisible(chromedp.ID("records")))
	require.Contains(t, text("#total"), "record")
	do(chromedp.Click(chromedp.ID("new")), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), "not-an-email"), chromedp.SendKeys(chromedp.ID("f-first_name"), "Grace"),
		chromedp.Click(chromedp.ID("submit")), chromedp.WaitVisible(chromedp.ID("err-email")))
	screenshot(t, ctx, "invalid.png")
	require.Contains(t, text("#err-email"), "email")
	kept, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("f-first_name")))
	require.NoError(t, err)
	require.Equal(t, "Grace", kept, "the form keeps what was typed")
	do(chromedp.SetValue(chromedp.ID("f-email"), "grace@example.com"), chromedp.Click(chromedp.ID("submit")), chromedp.WaitVisible(chromedp.ID("record-id")))
	require.Equal(t, "grace@example.com", text("#v-email"))
	require.Len(t, p.Do("GET", "/crm/consumers?email=grace@example.com", p.Token("crm.consumers.view"), nil).List(), 1)

	// Re-run the parked delivery and see it delivered.
	retryPage := p.URL + "/console/r/automation/webhookretries/" + retryID
	do(chromedp.Navigate(retryPage), chromedp.WaitVisible(chromedp.ID("action-retry")))
	require.Equal(t, webhook.StatusParked, text("#v-status"))
	attempts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#v-attempts tbody tr').length`))
	require.NoError(t, err)
	require.Equal(t, 5, attempts, "the attempt history")
	do(chromedp.Click(chromedp.ID("action-retry")), chromedp.WaitVisible(chromedp.ID("record-id")))
	status := text("#v-status")
	for deadline := time.Now().Add(60 * time.Second); status != webhook.StatusDelivered && time.Now().Before(deadline); status = text("#v-status") {
		do(chromedp.Sleep(300*time.Millisecond), chromedp.Navigate(retryPage), chromedp.WaitVisible(chromedp.ID("v-status")))
	}
	screenshot(t, ctx, "delivered.png")
	require.Equal(t, webhook.StatusDelivered, status)

	// Open the pipeline run from the operations page.
	do(chromedp.Navigate(p.URL+"/console/ops"), chromedp.Click(chromedp.CSS(`#ops a[href*="pipelineruns"]`)), chromedp.WaitVisible(chromedp.ID("records")),
		chromedp.Click(chromedp.CSS(`#records tbody a`)), chromedp.WaitVisible(chromedp.ID("v-steps")))
	screenshot(t, ctx, "run.png")
	require.Contains(t, text("#v-steps"), "greet")
	link, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(".related-link"), "href"))
	require.NoError(t, err)
	require.Equal(t, "http://temporal-ui.example/namespaces/default/workflows/"+runID, link.Value)
}

// parkedDelivery leaves a parked delivery as the real workflow does: its
// first round of five attempts against a failing receiver runs in the
// time-skipping environment (15 minutes in a moment) on the platform's
// store. The receiver then answers 200, for the re-run.
func parkedDelivery(t *testing.T, p *testenv.Platform) string {
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(int(status.Load())) }))
	t.Cleanup(rc.Close)
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/webhooks", tok, map[string]any{"name": "console", "url": rc.URL + "/hook", "events": []string{"consumers.created"}, "active": true})
	require.Equal(t, 201, r.Status, string(r.Body))
	hookID := r.Payload()["_id"].(string)
	eventID := store.NewID()
	require.NoError(t, p.Store.Collection(events.Collection).Insert(p.Ctx(), store.Doc{
		"_id": eventID, "name": "consumers.created", "timestamp": time.Now().UTC().Truncate(time.Millisecond),
		"data": store.Doc{"_id": store.NewID(), "email": "parked@example.com"}, "dispatched": true,
	}))
	workflowtest.ParkDelivery(t, p, eventID, hookID)
	status.Store(http.StatusOK)
	list := p.Do("GET", "/automation/webhookretries?status=parked&webhook="+hookID, tok, nil).List()
	require.Len(t, list, 1)
	return list[0]["_id"].(string)
}

// pipelineRun runs a one-step pipeline to its end and returns the run id.
func pipelineRun(t *testing.T, p *testenv.Platform) string {
	tok := p.Token("automation.*")
	r := p.Do("POST", "/automation/pipelines", tok, map[string]any{"name": "console run",
		"steps": []any{map[string]any{"id": "greet", "type": "transform", "expression": `"hello " & input.name`}}})
	require.Equal(t, 201, r.Status, string(r.Body))
	r = p.Do("POST", "/automation/pipelines/"+r.Payload()["_id"].(string)+"/actions/run", tok, map[string]any{"input": map[string]any{"name": "Ada"}})
	require.Equal(t, 200, r.Status, string(r.Body))
	id := r.Payload()["run"].(map[string]any)["_id"].(string)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if p.Do("GET", "/automation/pipelineruns/"+id, tok, nil).Payload()["status"] != "running" {
			return id
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("run %s still running", id)
	return ""
}

// screenshot saves the page to $CONSOLE_SCREENSHOTS (when set), to look at.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("CONSOLE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
}
