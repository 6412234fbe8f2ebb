package bench

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"platform/kernel/notify"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/test/testenv"
)

// BenchmarkNewsletters measures a newsletter's send end to end against
// its floor, in one run against the same local SMTP server (issue 15):
//   - newsletter: b.N consumers, one newsletter to all of them scheduled
//     now; mails/s from the create to the status sent, with the ledger,
//     the mail logs and the progress written for every mail;
//   - rawsmtp: the same number of mails sent one after the other by
//     notify.Mailer (one SMTP connection per mail, as the send does);
//   - ratio: newsletter over rawsmtp.
//
// The send rate setting is at its maximum, so the figures are the
// platform's, not the throttle's. Run: make bench-newsletters.
func BenchmarkNewsletters(b *testing.B) {
	mail := testenv.NewSMTPServer(b)
	p := testenv.NewPlatform(b, testenv.Options{Store: "sqlite", Worker: true, Configure: func(c *settings.Config) {
		c.SMTPAddr, c.SMTPTLS, c.NewsletterRate = mail.Addr, "none", 10_000
	}})
	tag := store.NewID()
	seedConsumers(b, p, tag, b.N)
	tok := p.Token("marketing.*")

	b.ResetTimer()
	start := time.Now()
	r := p.Do(http.MethodPost, "/marketing/newsletters", tok, map[string]any{"subject": "Bench", "tracking": true,
		"body":            `<p>Hello {{consumer.first_name}}, <a href="https://example.com/x">x</a> <a href="{{unsubscribeUrl}}">stop</a></p>`,
		"recipientFilter": map[string]any{"tags": tag}, "scheduleAt": time.Now().UTC().Format(time.RFC3339)})
	if r.Status != http.StatusCreated {
		b.Fatalf("create: %d %s", r.Status, r.Body)
	}
	waitSent(b, p, tok, r.Payload()["_id"].(string), b.N)
	news := float64(b.N) / time.Since(start).Seconds()
	b.StopTimer()

	raw := rawSMTP(b, mail.Addr, b.N)
	b.ReportMetric(news, "newsletter-mails/s")
	b.ReportMetric(raw, "rawsmtp-mails/s")
	b.ReportMetric(news/raw, "ratio")
	b.ReportMetric(0, "ns/op")
}

// seedConsumers stores n consumers tagged tag straight into the store
// (their creation is not what is measured).
func seedConsumers(b *testing.B, p *testenv.Platform, tag string, n int) {
	docs := make([]store.Doc, n)
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i := range docs {
		docs[i] = store.Doc{"_id": store.NewID(), "email": fmt.Sprintf("c%d-%s@example.com", i, tag), "first_name": fmt.Sprint("C", i),
			"tags": []any{tag}, "_status": "lead", "createdAt": now, "updatedAt": now}
	}
	for len(docs) > 0 {
		k := min(len(docs), 500)
		if err := p.Store.Collection("consumers").InsertMany(p.Ctx(), docs[:k]); err != nil {
			b.Fatal(err)
		}
		docs = docs[k:]
	}
}

func waitSent(b *testing.B, p *testenv.Platform, tok, id string, n int) {
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		r := p.Do(http.MethodGet, "/marketing/newsletters/"+id, tok, nil)
		if doc := r.Payload(); doc["_status"] == "sent" {
			if got, _ := doc["sent"].(float64); int(got) != n {
				b.Fatalf("sent %v of %d", doc["sent"], n)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatal("the newsletter was not sent in time")
}

// rawSMTP sends n mails one by one through notify.Mailer: mails/s.
func rawSMTP(b *testing.B, addr string, n int) float64 {
	m := &notify.Mailer{Addr: addr, From: "platform@localhost", TLS: notify.TLSNone, HELO: "localhost"}
	start := time.Now()
	for i := range n {
		err := m.Send(context.Background(), notify.Message{Channel: notify.ChannelMail, To: []string{fmt.Sprintf("raw%d@example.com", i)},
			Subject: "Bench", HTML: "<p>Hello</p>", Body: "Hello", Headers: map[string]string{"List-Unsubscribe": "<https://x.example/u>"}})
		if err != nil {
			b.Fatal(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}
