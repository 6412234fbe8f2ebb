package marketing_test

import (
	"fmt"
	"testing"
	"time"

	smtpmock "github.com/mocktools/go-smtp-mock/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/apitest"
	"platform/test/testenv"
)

// TestNotificationMailIsLogged: a pipeline's notification mail, sent
// through a real SMTP server, writes a mail log for the recipient who is
// a consumer (matched by address without case) and none for one who is not.
func TestNotificationMailIsLogged(t *testing.T) {
	t.Parallel()
	srv := smtpmock.New(smtpmock.ConfigurationAttr{HostAddress: "127.0.0.1", MultipleRcptto: true, MultipleMessageReceiving: true})
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Stop() })
	p := testenv.NewPlatform(t, testenv.Options{Store: "sqlite", Worker: true, Configure: func(c *settings.Config) {
		c.SMTPAddr, c.SMTPTLS, c.SMTPHelo = fmt.Sprintf("127.0.0.1:%d", srv.PortNumber()), "none", "localhost"
		c.SMTPFrom = "Acme <noreply@acme.example>"
	}})
	f := &fixture{apitest.Setup(t, p, apitest.Options{Modules: []string{"crm", "marketing", "automation"}, Rights: []string{"crm.*", "marketing.*", "automation.*"}})}
	c := f.consumer("ada@example.com")
	pipe := f.Create("/automation/pipelines", map[string]any{"name": "welcome", "steps": []any{
		map[string]any{"id": "mail", "type": "notification", "channel": "mail", "to": []any{"Ada@Example.com", "stranger@example.com"},
			"subject": "Welcome", "template": "Hello"}}})
	r := p.Do("POST", "/automation/pipelines/"+pipe+"/actions/run", f.Admin, map[string]any{"input": map[string]any{}})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	_, err := srv.WaitForMessages(1, 30*time.Second)
	require.NoError(t, err)

	var logs []map[string]any
	require.Eventually(t, func() bool {
		r := p.Do("GET", "/crm/consumers/"+c+"/maillogs", f.Admin, nil)
		logs = r.List()
		return len(logs) > 0
	}, 30*time.Second, 100*time.Millisecond)
	require.Len(t, logs, 1)
	assert.Equal(t, "sent", logs[0]["status"])
	assert.Equal(t, "notification", logs[0]["source"])
	assert.Equal(t, "Ada@Example.com", logs[0]["to"])
	assert.NotEmpty(t, logs[0]["sentAt"])
	all := p.Do("GET", "/marketing/maillogs", f.Admin, nil)
	require.Equal(t, 200, all.Status)
	assert.Len(t, all.List(), 1, "mail to someone who is no consumer leaves no log")
}
