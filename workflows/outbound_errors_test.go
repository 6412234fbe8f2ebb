package workflows_test

import (
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/notify"
	"platform/kernel/outbound/outboundtest"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/automation/runs"
	"platform/modules/automation/webhook"
)

// Errors of failed calls name the platform's own infrastructure (the name
// server in "lookup x on 10.0.0.2:53", dialled addresses); the delivery
// and run records hold a clean cause instead, as tenants read them.

func TestDeliveryRecordsACleanCause(t *testing.T) {
	t.Parallel()
	closed := closedAddr(t)
	for _, c := range []struct{ url, want string }{
		{"https://hooks.example.test/in", "DNS lookup failed for hooks.example.test: no such host"},
		{"http://" + closed + "/hook", "connection refused by " + closed},
	} {
		f := newFixture(t)
		f.guard.Resolver = outboundtest.NXDomainResolver(t)
		_, err := f.st.Collection(webhook.Collection).Update(f.ctx, query.ID(f.hookID), store.Update{Set: store.Doc{"url": c.url}})
		require.NoError(t, err)
		require.Equal(t, webhook.StatusParked, f.run(f.env(nil), 0).Status)
		attempts := f.retryRecord()["attempts"].([]any)
		require.Len(t, attempts, webhook.MaxAttempts)
		for _, a := range attempts {
			require.Equal(t, c.want, a.(store.Doc)["error"], c.url)
		}
		rec, err := f.st.Collection(webhook.DeliveriesCollection).Get(f.ctx,
			webhook.AttemptRecordID(webhook.DeliveryID(f.eventID, f.hookID), 0, 1))
		require.NoError(t, err)
		require.Equal(t, c.want, rec["error"], "the attempt's webhookdeliveries record")
	}
}

func TestPipelineStepRecordsACleanCause(t *testing.T) {
	t.Parallel()
	f := newPipeFixture(t)
	f.acts.Outbound.Resolver = outboundtest.NXDomainResolver(t)
	closed := closedAddr(t)
	f.acts.Notifier = &notify.Router{SMS: &notify.HTTPSMS{URL: "http://" + closed + "/sms"}}
	for _, c := range []struct{ step, want string }{
		{`{"id": "call", "type": "http", "url": "https://api.example.test/orders", "retry": {"maxAttempts": 2}}`,
			"DNS lookup failed for api.example.test: no such host"},
		{fmt.Sprintf(`{"id": "call", "type": "http", "url": "http://%s/orders", "retry": {"maxAttempts": 2}}`, closed),
			"connection refused by " + closed},
		{`{"id": "call", "type": "notification", "channel": "sms", "to": "+4915112345678", "template": "hi", "retry": {"maxAttempts": 2}}`,
			"connection refused by the sms provider"},
	} {
		id := f.pipeline(`{"name": "call out", "steps": [` + c.step + `]}`)
		env := f.newEnv()
		runID := f.start(env, id, nil)
		require.Equal(t, c.want, failed(t, env).Message, c.step)
		rec := f.record(runID)
		requireFinished(t, rec, runs.StatusFailed)
		require.Equal(t, c.want, docOf(t, rec["error"])["message"], "the run record")
		require.Equal(t, c.want, docOf(t, step(t, rec, "call")["error"])["message"], "the step's record")
	}
}

// closedAddr is a loopback host:port nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}
