package marketing_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/modules/marketing/reports/reportstest"
	"platform/modules/marketing/tracking"
	"platform/test/testenv"
)

// report posts a report to the intake with the token.
func (f *fixture) report(ct, body string, auth ...string) *testenv.Resp {
	f.T.Helper()
	h := []string{"Content-Type", ct, "Authorization", "Bearer " + inboundToken}
	if len(auth) > 0 {
		h[3] = auth[0]
	}
	return f.P.Do("POST", "/marketing/inbound/mail", "", body, h...)
}

func (f *fixture) messageID(id string) string {
	return tracking.MessageID(f.P.Customer.ID, id, "mail.example.com")
}

// TestBounceReports: a report in each format moves its mail log and
// announces it once; a log never moves backwards.
func TestBounceReports(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind)
			jsonLog, dsnLog, arfLog, mailLog := f.mailLog("", time.Hour), f.mailLog("", time.Hour), f.mailLog("", time.Hour), f.mailLog("", time.Hour)
			dsnCT, dsn := reportstest.DSN(f.messageID(dsnLog), "failed")
			arfCT, arf := reportstest.ARF(f.messageID(arfLog))
			mailCT, mailDSN := reportstest.DSN(f.messageID(mailLog), "failed")
			cases := []struct {
				name, log, ct, body, status, event, reason string
			}{
				{"json", jsonLog, "application/json", `{"messageId":"<` + f.messageID(jsonLog) + `>","type":"bounce","reason":"mailbox full"}`, "bounced", "maillogs.bounced", "mailbox full"},
				{"dsn", dsnLog, dsnCT, dsn, "bounced", "maillogs.bounced", "5.1.1 smtp; 550 5.1.1 <nobody@example.org>: Recipient address rejected"},
				{"arf", arfLog, arfCT, arf, "complained", "maillogs.complained", "feedback-type abuse"},
				{"whole mail", mailLog, "message/rfc822", reportstest.Mail(mailCT, mailDSN), "bounced", "maillogs.bounced", "5.1.1 smtp; 550 5.1.1 <nobody@example.org>: Recipient address rejected"},
			}
			for _, c := range cases {
				var r *testenv.Resp
				evs := f.names(func() { r = f.report(c.ct, c.body) })
				require.Equal(t, 200, r.Status, "%s: %s", c.name, r.Body)
				assert.Equal(t, true, r.Payload()["moved"], c.name)
				assert.Equal(t, []string{c.event}, evs, c.name)
				log := f.Stored("maillogs", c.log)
				assert.Equal(t, c.status, log["status"], c.name)
				assert.Equal(t, c.reason, log["bounceReason"], c.name)
			}

			// Backwards: a bounce after the complaint, a second bounce, an open after a bounce.
			evs := f.names(func() {
				r := f.report(`application/json`, `{"messageId":"`+f.messageID(arfLog)+`","type":"bounce","reason":"late"}`)
				require.Equal(t, 200, r.Status, "%s", r.Body)
				assert.Equal(t, false, r.Payload()["moved"])
				assert.Equal(t, "complained", r.Payload()["status"])
				f.report(dsnCT, dsn)
				f.hit("GET", f.P.Tracking.Pixel(f.P.Customer.ID, dsnLog), browser, "")
			})
			assert.Equal(t, []string{"maillogs.opened"}, evs, "only the open's date is news")
			assert.Equal(t, "complained", f.Stored("maillogs", arfLog)["status"])
			assert.Equal(t, "feedback-type abuse", f.Stored("maillogs", arfLog)["bounceReason"])
			assert.Equal(t, "bounced", f.Stored("maillogs", dsnLog)["status"], "an open never moves a bounced log back")

			// Opened mail can still bounce (a late DSN) and be complained about.
			opened := f.mailLog("", time.Hour)
			f.hit("GET", f.P.Tracking.Pixel(f.P.Customer.ID, opened), browser, "")
			r := f.report("application/json", `{"messageId":"`+f.messageID(opened)+`","type":"complaint","reason":"spam button"}`)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Equal(t, "complained", f.Stored("maillogs", opened)["status"])
		})
	}
}

// TestIntakeRefuses: without the token, with a wrong one or while the
// intake is off, nothing moves; reports of no mail of ours are answered.
func TestIntakeRefuses(t *testing.T) {
	f := newFixture(t, "sqlite")
	id := f.mailLog("", time.Hour)
	body := `{"messageId":"` + f.messageID(id) + `","type":"bounce"}`
	before := f.Snapshot()
	for _, auth := range []string{"", "Bearer wrong-token-0123456789abcdef0123", "Basic d3Jvbmc6d3Jvbmc="} {
		r := f.report("application/json", body, auth)
		assert.Equal(t, 401, r.Status, "%q: %s", auth, r.Body)
	}
	assert.Equal(t, before, f.Snapshot())
	r := f.report("application/json", `{"messageId":"<someone-else@example.org>","type":"bounce"}`)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, false, r.Payload()["matched"])
	r = f.report("text/plain", "hello")
	assert.Equal(t, 400, r.Status)
	r = f.report("application/json", body, "Basic eDp0ZXN0LWluYm91bmQtdG9rZW4tMDEyMzQ1Njc4OWFiY2RlZg==") // x:<token>
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, "bounced", f.Stored("maillogs", id)["status"])

	off := testenv.NewPlatform(t, testenv.Options{Store: "sqlite"})
	r = off.Do("POST", "/marketing/inbound/mail", "", body, "Content-Type", "application/json", "Authorization", "Bearer "+inboundToken)
	assert.Equal(t, 403, r.Status, "the intake is off without PLATFORM_MAIL_INBOUND_TOKEN")
}
