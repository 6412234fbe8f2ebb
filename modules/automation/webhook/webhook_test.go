package webhook_test

import (
	"context"
	"encoding/base64"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v84/github"
	"github.com/stretchr/testify/require"

	"platform/modules/automation/webhook"
)

const secret = "0123456789abcdef0123456789abcdef-secret"

func TestSignatureVerifiesWithGoGitHub(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event":"consumers.created","data":{"email":"a@example.com"}}`)
	sig := webhook.Signature(secret, body)
	require.True(t, strings.HasPrefix(sig, "sha256="))
	require.NoError(t, github.ValidateSignature(sig, body, []byte(secret)))
	require.Error(t, github.ValidateSignature(sig, append(body, ' '), []byte(secret)), "the signature covers the exact bytes")
	require.Error(t, github.ValidateSignature(sig, body, []byte(secret+"x")))
}

func TestStandardKeyMapping(t *testing.T) {
	t.Parallel()
	require.Equal(t, []byte(secret), webhook.StandardKey(secret), "a plain secret keys with its bytes")
	raw := []byte("twenty-four random bytes")
	std := "whsec_" + base64.StdEncoding.EncodeToString(raw)
	require.Equal(t, raw, webhook.StandardKey(std), "a whsec_ secret keys with its decoded part")
	require.Equal(t, []byte("whsec_not base64!!"), webhook.StandardKey("whsec_not base64!!"), "not base64: the bytes")
}

func TestRequestHeadersAndStableBody(t *testing.T) {
	t.Parallel()
	m := webhook.Message{DeliveryID: "e-w", Event: "consumers.created", Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC),
		Customer: "c1", Data: map[string]any{"email": "a@example.com", "_id": "x", "first_name": "Ada"}}
	body, err := m.Body()
	require.NoError(t, err)
	require.Equal(t, `{"event":"consumers.created","timestamp":"2026-01-02T03:04:05.006Z","customer":"c1","data":{"_id":"x","email":"a@example.com","first_name":"Ada"}}`, string(body))
	again, _ := m.Body()
	require.Equal(t, body, again)

	tg := webhook.Target{URL: "https://example.com/hook", Secret: secret, Headers: map[string]string{
		"X-Api-Key": "k", "X-Platform-Event": "forged", "Content-Type": "text/plain", "webhook-id": "forged"}}
	now := time.Unix(1700000000, 0)
	req, err := webhook.NewRequest(context.Background(), tg, m, body, now)
	require.NoError(t, err)
	require.Equal(t, "k", req.Header.Get("X-Api-Key"))
	require.Equal(t, "consumers.created", req.Header.Get(webhook.HeaderEvent), "tenant headers never override")
	require.Equal(t, "application/json", req.Header.Get("Content-Type"))
	require.Equal(t, "e-w", req.Header.Get(webhook.HeaderDelivery))
	require.Equal(t, "e-w", req.Header.Get(webhook.HeaderSWID))
	require.Equal(t, "1700000000", req.Header.Get(webhook.HeaderSWTime))
	require.Equal(t, webhook.StandardSignature(secret, "e-w", 1700000000, body), req.Header.Get(webhook.HeaderSWSig))
	sent, _ := io.ReadAll(req.Body)
	require.NoError(t, github.ValidateSignature(req.Header.Get(webhook.HeaderSignature), sent, []byte(secret)))

	unsigned, _ := webhook.NewRequest(context.Background(), webhook.Target{URL: tg.URL}, m, body, now)
	require.Empty(t, unsigned.Header.Get(webhook.HeaderSignature))
	require.Empty(t, unsigned.Header.Get(webhook.HeaderSWSig))
}

func TestHeaderRules(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Connection", "transfer-encoding", "Host", "Content-Length", "X-Platform-Signature",
		"x-platform-delivery", "Webhook-Signature", "webhook-id", "TE", "Upgrade", "bad name", "a:b", ""} {
		require.NotEmpty(t, webhook.CheckHeader(name, "v"), name)
	}
	require.NotEmpty(t, webhook.CheckHeader("X-Ok", "a\r\nInjected: 1"))
	require.Empty(t, webhook.CheckHeader("Authorization", "Bearer abc"))
	require.Empty(t, webhook.CheckHeader("X-Tenant", "value\twith tab"))
}
