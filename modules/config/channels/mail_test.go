package channels_test

import (
	"net/mail"
	"strings"
	"testing"
	"time"

	smtpmock "github.com/mocktools/go-smtp-mock/v2"
	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
	"platform/modules/config/channels"
)

func TestMailOverSMTPThroughTheGuard(t *testing.T) {
	t.Parallel()
	srv := smtpmock.New(smtpmock.ConfigurationAttr{HostAddress: "127.0.0.1", MultipleRcptto: true, MultipleMessageReceiving: true})
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Stop() })
	settings := map[string]any{"host": "127.0.0.1", "port": srv.PortNumber(), "tls": "none", "helo": "localhost", "from": "shop@example.com",
		"to": []any{"ada@example.com", "bob@example.org"}}
	require.NoError(t, send(t, testEnv(t), channels.KindMail, settings, map[string]any{}))
	require.Eventually(t, func() bool { return len(srv.Messages()) == 1 }, 5*time.Second, 10*time.Millisecond)
	got := srv.Messages()[0]
	require.Len(t, got.RcpttoRequestResponse(), 2)
	parsed, err := mail.ReadMessage(strings.NewReader(got.MsgRequest()))
	require.NoError(t, err)
	require.Equal(t, "New consumer", parsed.Header.Get("Subject"))
	require.Contains(t, parsed.Header.Get("Message-Id"), "@example.com>", "a Message-ID per delivery")

	// The guard refuses the loopback server when it is not allowed.
	g, err := outbound.New(nil)
	require.NoError(t, err)
	err = send(t, &channels.Env{Dial: g.DialContext, Timeout: time.Second}, channels.KindMail, settings, map[string]any{})
	require.Error(t, err)
	require.Len(t, srv.Messages(), 1, "nothing sent past the guard")
}

func TestMailRejectionIsPermanent(t *testing.T) {
	t.Parallel()
	srv := smtpmock.New(smtpmock.ConfigurationAttr{HostAddress: "127.0.0.1", NotRegisteredEmails: []string{"nobody@example.com"}})
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Stop() })
	err := send(t, testEnv(t), channels.KindMail, map[string]any{"host": "127.0.0.1", "port": srv.PortNumber(), "tls": "none", "helo": "localhost",
		"from": "shop@example.com", "to": []any{"nobody@example.com"}}, map[string]any{})
	require.Error(t, err)
	require.True(t, channels.IsPermanent(err), "550: %v", err)
	require.Contains(t, channels.Cause(err), "550")
}
