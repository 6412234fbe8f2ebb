package marketing_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/workflows/contract"
)

// TestNewsletterValidation: a Handlebars syntax error is a 422 on body
// naming line and column; a filter on an unknown consumer field is a 422
// on recipientFilter; a newsletter without scheduleAt is a draft.
func TestNewsletterValidation(t *testing.T) {
	t.Parallel()
	e := newNewsEnv(t, 1000, false)
	r := e.p.Do(http.MethodPost, "/marketing/newsletters", e.tok, map[string]any{"subject": "x", "body": "<p>\n  {{#if a}}x{{/each}}</p>"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	entry := r.Meta()["errors"].([]any)[0].(map[string]any)
	require.Equal(t, "body", entry["field"])
	require.Contains(t, entry["message"], "line 2, column 16")

	r = e.p.Do(http.MethodPost, "/marketing/newsletters", e.tok, map[string]any{"subject": "x", "body": "hi", "recipientFilter": map[string]any{"password": "x"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	require.Equal(t, "recipientFilter", r.Meta()["errors"].([]any)[0].(map[string]any)["field"])

	r = e.p.Do(http.MethodPost, "/marketing/newsletters", e.tok, map[string]any{"body": "hi"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "subject is required")

	nl := e.create(map[string]any{"subject": "x", "body": "hi {{consumer.first_name}}"})
	require.Equal(t, "draft", nl["_status"])
	require.EqualValues(t, 0, nl["sent"])
	r = e.p.Do(http.MethodPatch, "/marketing/newsletters/"+nl["_id"].(string), e.tok, map[string]any{"_status": "sent"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "_status is the platform's")
	require.Equal(t, http.StatusConflict, e.act(nl["_id"].(string), "cancel", nil).Status, "a draft has nothing to cancel")
}

// TestNewsletterRescheduleAndUnschedule: a later scheduleAt waits; moving
// it to now sends at once; clearing it makes a draft again and ends the
// newsletter's workflow, which sends nothing.
func TestNewsletterRescheduleAndUnschedule(t *testing.T) {
	t.Parallel()
	e := newNewsEnv(t, 1000, true)
	e.consumer("ada@example.com", "Ada")
	later := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)

	a := e.create(map[string]any{"subject": "A", "body": "a", "scheduleAt": later})
	require.Equal(t, "scheduled", a["_status"])
	aID := a["_id"].(string)
	time.Sleep(2 * time.Second)
	require.Empty(t, e.smtp.Mails(), "nothing before scheduleAt")
	require.Contains(t, []any{"scheduled", "sending", "sent"}, e.patch(aID, map[string]any{"scheduleAt": now()})["_status"])
	e.waitStatus(aID, "sent", 30*time.Second)
	require.Len(t, e.smtp.WaitFor(1, 5*time.Second), 1)

	b := e.create(map[string]any{"subject": "B", "body": "b", "scheduleAt": later})
	bID := b["_id"].(string)
	require.Equal(t, "draft", e.patch(bID, map[string]any{"scheduleAt": nil})["_status"])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := e.p.Temporal.GetWorkflow(ctx, contract.NewsletterWorkflowID(e.p.Customer.ID, bID), "")
	require.NoError(t, run.Get(ctx, nil), "the unscheduled newsletter's workflow ends")
	require.Equal(t, "draft", e.get(bID)["_status"])
	require.Len(t, e.smtp.Mails(), 1, "B sent nothing")
	require.Empty(t, e.stored("maillogs", query.Eq("newsletter", bID)))
}

// TestNewsletterSendTestAndDuplicate: send-test mails one address with a
// sample consumer and writes no mail log; duplicate answers a new draft.
func TestNewsletterSendTestAndDuplicate(t *testing.T) {
	t.Parallel()
	e := newNewsEnv(t, 1000, false)
	nl := e.create(map[string]any{"subject": "Hi", "body": "<p>Hello {{consumer.first_name}}</p>", "tracking": true,
		"recipientFilter": map[string]any{"tags": "vip"}})
	id := nl["_id"].(string)
	r := e.act(id, "send-test", map[string]any{"to": "qa@example.com"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	mails := e.smtp.WaitFor(1, 5*time.Second)
	require.Len(t, mails, 1)
	require.Equal(t, []string{"qa@example.com"}, mails[0].To)
	require.Contains(t, mails[0].Part("text/html"), "Hello Ada")
	require.Empty(t, e.stored("maillogs", nil), "a test mail has no mail log")
	require.Equal(t, http.StatusUnprocessableEntity, e.act(id, "send-test", map[string]any{"to": "not-an-address"}).Status)

	r = e.act(id, "duplicate", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	cp := r.Payload()
	require.NotEqual(t, id, cp["_id"])
	require.Equal(t, "draft", cp["_status"])
	require.Equal(t, "Hi", cp["subject"])
	require.Equal(t, true, cp["tracking"])
	require.Equal(t, map[string]any{"tags": "vip"}, cp["recipientFilter"])
	require.Len(t, e.events("newsletters.created"), 2)
}
