package marketing_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/test/testenv"
)

// newsEnv is a platform with a worker, sending through a test SMTP server.
type newsEnv struct {
	t    *testing.T
	p    *testenv.Platform
	smtp *testenv.SMTPServer
	tok  string
}

// newNewsEnv starts a platform whose mail goes to a test SMTP server at
// rate mails per second; worker says whether it runs a worker itself.
// Each configure changes the settings further.
func newNewsEnv(t *testing.T, rate float64, worker bool, configure ...func(*settings.Config)) *newsEnv {
	t.Helper()
	srv := testenv.NewSMTPServer(t)
	p := testenv.NewPlatform(t, testenv.Options{Worker: worker, Configure: func(c *settings.Config) {
		c.SMTPAddr, c.SMTPTLS, c.SMTPFrom, c.NewsletterRate = srv.Addr, "none", "News <news@example.com>", rate
		for _, f := range configure {
			f(c)
		}
	}})
	p.CheckOpenAPI("marketing")
	return &newsEnv{t: t, p: p, smtp: srv, tok: p.Token("crm.*", "marketing.*")}
}

// consumer creates a consumer and returns its id.
func (e *newsEnv) consumer(email, first string, tags ...string) string {
	e.t.Helper()
	body := map[string]any{"email": email, "first_name": first}
	if len(tags) > 0 {
		body["tags"] = tags
	}
	r := e.p.Do(http.MethodPost, "/crm/consumers", e.tok, body)
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.Payload()["_id"].(string)
}

// create posts a newsletter and returns the answer's record.
func (e *newsEnv) create(body map[string]any) store.Doc {
	e.t.Helper()
	r := e.p.Do(http.MethodPost, "/marketing/newsletters", e.tok, body)
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.Payload()
}

func (e *newsEnv) patch(id string, body map[string]any) store.Doc {
	e.t.Helper()
	r := e.p.Do(http.MethodPatch, "/marketing/newsletters/"+id, e.tok, body)
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return r.Payload()
}

func (e *newsEnv) act(id, action string, body any) *testenv.Resp {
	e.t.Helper()
	return e.p.Do(http.MethodPost, "/marketing/newsletters/"+id+"/actions/"+action, e.tok, body)
}

func (e *newsEnv) get(id string) store.Doc {
	e.t.Helper()
	r := e.p.Do(http.MethodGet, "/marketing/newsletters/"+id, e.tok, nil)
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return r.Payload()
}

// waitStatus waits until the newsletter has status and returns it.
func (e *newsEnv) waitStatus(id, status string, timeout time.Duration) store.Doc {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	var doc store.Doc
	for time.Now().Before(deadline) {
		if doc = e.get(id); doc["_status"] == status {
			return doc
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("newsletter %s: status %v after %s, want %s: %v", id, doc["_status"], timeout, status, doc)
	return nil
}

// stored reads the documents of a collection of the test customer.
func (e *newsEnv) stored(coll string, filter query.Expr) []store.Doc {
	e.t.Helper()
	docs, err := e.p.Store.Collection(coll).Find(e.p.Ctx(), store.FindOptions{Filter: filter})
	require.NoError(e.t, err)
	return docs
}

// events are the recorded events of that name.
func (e *newsEnv) events(name string) []store.Doc {
	return e.stored(events.Collection, query.Eq("name", name))
}

// eventsEventually waits up to 10 s for n recorded events of that name:
// a workflow's write is visible before the event the record service
// records right after it (an API answer waits for both; a poll of the
// record does not).
func (e *newsEnv) eventsEventually(name string, n int) []store.Doc {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		docs := e.events(name)
		if len(docs) >= n || time.Now().After(deadline) {
			return docs
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// byRecipient counts the mails each address got.
func byRecipient(mails []testenv.Mail) map[string]int {
	out := map[string]int{}
	for _, m := range mails {
		for _, to := range m.To {
			out[to]++
		}
	}
	return out
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }
