package marketing_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/marketing/tracking"
)

const newsBody = `<html><body><p>Hello {{consumer.first_name}} from {{customer.name}},</p>
<p><a href="https://shop.example.com/sale?x=1&amp;y=2">the sale</a></p>
<p><a href="{{unsubscribeUrl}}">unsubscribe</a></p></body></html>`

// TestNewsletterSendsToFilteredConsumers: a newsletter with tracking goes
// to the consumers its filter selects, except the anonymized, the
// unsubscribed and an address that bounced before; each mail is rendered
// for its recipient, tracked, carries the RFC 8058 headers and the
// Message-ID of its mail log, which ends sent.
func TestNewsletterSendsToFilteredConsumers(t *testing.T) {
	t.Parallel()
	e := newNewsEnv(t, 1000, true)
	ada := e.consumer("ada@example.com", "Ada", "vip")
	e.consumer("bob@example.com", "Bob", "vip")
	e.consumer("cy@example.com", "Cy") // not in the filter
	gone := e.consumer("gone@example.com", "Gone", "vip")
	require.Equal(t, http.StatusOK, e.p.Do(http.MethodPost, "/crm/consumers/"+gone+"/actions/anonymize", e.tok, nil).Status)
	unsub := e.consumer("unsub@example.com", "Un", "vip")
	_, err := e.p.Store.Collection("consumers").Update(e.p.Ctx(), query.ID(unsub), store.Update{Set: store.Doc{"unsubscribedAt": time.Now().UTC()}})
	require.NoError(t, err)
	e.consumer("bounced@example.com", "Bo", "vip")
	require.NoError(t, e.p.Store.Collection("maillogs").Insert(e.p.Ctx(), store.Doc{"_id": store.NewID(), "to": "bounced@example.com", "status": "bounced"}))

	nl := e.create(map[string]any{"subject": "Spring sale", "body": newsBody, "tracking": true,
		"recipientFilter": map[string]any{"tags": "vip"}, "scheduleAt": now()})
	id := nl["_id"].(string)
	require.Contains(t, []any{"scheduled", "sending", "sent"}, nl["_status"])
	done := e.waitStatus(id, "sent", 30*time.Second)
	require.EqualValues(t, 2, done["sent"])
	require.EqualValues(t, 2, done["recipients"])
	require.EqualValues(t, 0, done["failed"])

	mails := e.smtp.Mails()
	require.Equal(t, map[string]int{"ada@example.com": 1, "bob@example.com": 1}, byRecipient(mails))
	logs := e.stored("maillogs", query.Eq("newsletter", id))
	require.Len(t, logs, 2)
	for _, m := range mails {
		html := m.Part("text/html")
		require.Contains(t, html, "from "+e.p.Customer.Name)
		require.Contains(t, html, "/t/c/", "links go through the click redirect")
		require.Contains(t, html, "/t/o/", "the open pixel")
		require.NotContains(t, html, `href="https://shop.example.com`)
		require.Contains(t, m.Header.Get("List-Unsubscribe"), "/t/u/")
		require.Equal(t, "List-Unsubscribe=One-Click", m.Header.Get("List-Unsubscribe-Post"))
		require.Contains(t, html, strings.Trim(m.Header.Get("List-Unsubscribe"), "<>"), "the body's opt-out link is the header's")
		cust, logID, ok := tracking.ParseMessageID(m.Header.Get("Message-Id"))
		require.True(t, ok, m.Header.Get("Message-Id"))
		require.Equal(t, e.p.Customer.ID, cust)
		log := e.stored("maillogs", query.ID(logID))
		require.Len(t, log, 1)
		require.Equal(t, "sent", log[0]["status"])
		require.Equal(t, m.To[0], log[0]["to"])
		if m.To[0] == "ada@example.com" {
			require.Contains(t, html, "Hello Ada")
			require.Equal(t, ada, log[0]["consumer"])
		}
		// The text part reads like the HTML: one paragraph a line, links
		// with their address (issue 30: it used to run words together).
		text := strings.ReplaceAll(m.Part("text/plain"), "\r\n", "\n")
		require.Regexp(t, `(?m)^Hello \w+ from .+,\n\nthe sale \(http\S+/t/c/\S+\)\n\nunsubscribe \(http\S+/t/u/\S+\)$`, text)
	}
	require.Len(t, e.eventsEventually("newsletters.sent", 1), 1)
	r := e.p.Do(http.MethodGet, "/marketing/maillogs?newsletter="+id, e.tok, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Len(t, r.List(), 2)
	r = e.p.Do(http.MethodGet, "/marketing/newsletters/"+id+"/maillogs", e.tok, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, r.List(), 2, "the newsletter's mail logs")
}

// TestNewsletterTrackingOffLeavesLinks: without tracking the links and
// the body stay as written, with no pixel; the headers are there.
func TestNewsletterTrackingOffLeavesLinks(t *testing.T) {
	t.Parallel()
	e := newNewsEnv(t, 1000, true)
	e.consumer("ada@example.com", "Ada")
	nl := e.create(map[string]any{"subject": "Plain", "body": newsBody, "scheduleAt": now()})
	e.waitStatus(nl["_id"].(string), "sent", 30*time.Second)
	mails := e.smtp.Mails()
	require.Len(t, mails, 1)
	html := mails[0].Part("text/html")
	require.Contains(t, html, `href="https://shop.example.com/sale?x=1&amp;y=2"`)
	require.NotContains(t, html, "/t/o/")
	require.NotContains(t, html, "/t/c/")
	require.Contains(t, mails[0].Header.Get("List-Unsubscribe"), "/t/u/")
}
