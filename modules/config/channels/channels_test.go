package channels_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
	"platform/modules/automation/webhook"
	"platform/modules/config/channels"
)

// seen is one request a provider received.
type seen struct {
	Method, Path string
	Header       http.Header
	Raw          string
	JSON         map[string]any
}

// provider is a local server speaking a provider's side: it records each
// request and answers status with body.
type provider struct {
	mu     sync.Mutex
	reqs   []seen
	status int
	body   string
	URL    string
}

func startProvider(t *testing.T, status int, body string) *provider {
	t.Helper()
	p := &provider{status: status, body: body}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		s := seen{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: string(raw)}
		_ = json.Unmarshal(raw, &s.JSON)
		p.mu.Lock()
		p.reqs = append(p.reqs, s)
		p.mu.Unlock()
		w.WriteHeader(p.status)
		_, _ = io.WriteString(w, p.body)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func (p *provider) requests() []seen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seen(nil), p.reqs...)
}

func testEnv(t *testing.T) *channels.Env {
	t.Helper()
	g, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	return &channels.Env{HTTP: g.Client(5 * time.Second), Dial: g.DialContext, Timeout: 5 * time.Second}
}

var sample = channels.Message{Subject: "New consumer", Body: "Ada Lovelace signed up", EventID: "ev1", EventName: "consumers.created",
	Data: map[string]any{"name": "Ada"}, DeliveryID: "d-1", Route: "r1", Channel: "c1", Time: time.Unix(1700000000, 0)}

// send checks the target's settings like a save does, then sends sample.
func send(t *testing.T, env *channels.Env, kind string, settings, secrets map[string]any) error {
	t.Helper()
	k, ok := channels.Lookup(kind)
	require.True(t, ok, kind)
	require.Empty(t, channels.Check(k, settings, secrets, true))
	return k.Send(context.Background(), env, channels.Target{Kind: kind, Settings: settings, Secrets: secrets}, sample)
}

func TestChatKindsPostTheirShapes(t *testing.T) {
	t.Parallel()
	text := "New consumer\nAda Lovelace signed up"
	cases := []struct {
		kind     string
		status   int
		settings map[string]any
		want     map[string]any
	}{
		{channels.KindSlack, 200, map[string]any{}, map[string]any{"text": text}},
		{channels.KindDiscord, 204, map[string]any{"username": "Shop"}, map[string]any{"content": text, "username": "Shop"}},
		{channels.KindMattermost, 200, map[string]any{"channel": "town-square"}, map[string]any{"text": text, "channel": "town-square"}},
		{channels.KindGoogleChat, 200, map[string]any{}, map[string]any{"text": text}},
		{channels.KindTeams, 202, map[string]any{}, map[string]any{"type": "message", "attachments": []any{map[string]any{
			"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": nil,
			"content": map[string]any{"$schema": "http://adaptivecards.io/schemas/adaptive-card.json", "type": "AdaptiveCard", "version": "1.4",
				"body": []any{
					map[string]any{"type": "TextBlock", "text": "New consumer", "weight": "Bolder", "size": "Medium", "wrap": true},
					map[string]any{"type": "TextBlock", "text": "Ada Lovelace signed up", "wrap": true},
				}}}}}},
	}
	for _, c := range cases {
		p := startProvider(t, c.status, "")
		hook := p.URL + "/hooks/T000/B000/XXXXsecret"
		require.NoError(t, send(t, testEnv(t), c.kind, c.settings, map[string]any{"webhookUrl": hook}), c.kind)
		reqs := p.requests()
		require.Len(t, reqs, 1, c.kind)
		require.Equal(t, "POST", reqs[0].Method)
		require.Equal(t, "/hooks/T000/B000/XXXXsecret", reqs[0].Path)
		require.Equal(t, "application/json", reqs[0].Header.Get("Content-Type"))
		require.Equal(t, c.want, reqs[0].JSON, c.kind)
	}
}

func TestChatFailuresNameNoSecret(t *testing.T) {
	t.Parallel()
	p := startProvider(t, 404, "no_service")
	hook := p.URL + "/hooks/secret-token-123"
	err := send(t, testEnv(t), channels.KindSlack, map[string]any{}, map[string]any{"webhookUrl": hook})
	require.Error(t, err)
	require.True(t, channels.IsPermanent(err), "a 404 is permanent")
	require.Contains(t, channels.Cause(err), "404")

	p.status = 503
	err = send(t, testEnv(t), channels.KindSlack, map[string]any{}, map[string]any{"webhookUrl": hook})
	require.False(t, channels.IsPermanent(err), "a 503 may pass later")

	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/hooks/secret-token-456"
	dead.Close()
	err = send(t, testEnv(t), channels.KindDiscord, map[string]any{}, map[string]any{"webhookUrl": deadURL})
	require.Error(t, err)
	require.False(t, channels.IsPermanent(err), "connection refused may pass later")
	for _, text := range []string{err.Error(), channels.Cause(err)} {
		require.NotContains(t, text, "secret-token")
	}
}

func TestGuardRefusalIsPermanent(t *testing.T) {
	t.Parallel()
	g, err := outbound.New(nil) // nothing local allowed
	require.NoError(t, err)
	env := &channels.Env{HTTP: g.Client(time.Second)}
	p := startProvider(t, 200, "")
	err = send(t, env, channels.KindGoogleChat, map[string]any{}, map[string]any{"webhookUrl": p.URL + "/v1/spaces/AAA/messages?key=k&token=tok-secret"})
	require.Error(t, err)
	require.True(t, channels.IsPermanent(err))
	require.Empty(t, p.requests())
	require.NotContains(t, err.Error(), "tok-secret")
}

func TestTelegramSendMessage(t *testing.T) {
	t.Parallel()
	p := startProvider(t, 200, `{"ok":true,"result":{"message_id":1}}`)
	token := "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
	require.NoError(t, send(t, testEnv(t), channels.KindTelegram, map[string]any{"chatId": "-1001234567890", "baseUrl": p.URL}, map[string]any{"botToken": token}))
	r := p.requests()[0]
	require.Equal(t, "/bot"+token+"/sendMessage", r.Path)
	require.Equal(t, map[string]any{"chat_id": "-1001234567890", "text": "New consumer\nAda Lovelace signed up"}, r.JSON)

	p.status, p.body = 429, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`
	err := send(t, testEnv(t), channels.KindTelegram, map[string]any{"chatId": "@shopnews", "baseUrl": p.URL}, map[string]any{"botToken": token})
	require.False(t, channels.IsPermanent(err))
	require.Equal(t, 7*time.Second, channels.RetryAfter(err))

	p.status, p.body = 200, `{"ok":false,"description":"Bad Request: chat not found"}`
	err = send(t, testEnv(t), channels.KindTelegram, map[string]any{"chatId": "42", "baseUrl": p.URL}, map[string]any{"botToken": token})
	require.True(t, channels.IsPermanent(err))
	require.Contains(t, channels.Cause(err), "chat not found")
	require.NotContains(t, err.Error(), token)
}

func TestSMSPostsTwilioForms(t *testing.T) {
	t.Parallel()
	p := startProvider(t, 201, `{"sid":"SM1"}`)
	sid := "AC" + strings.Repeat("a1", 16)
	require.NoError(t, send(t, testEnv(t), channels.KindSMS,
		map[string]any{"accountSid": sid, "from": "+14155550100", "to": []any{"+4915112345678", "+14155550123"}, "baseUrl": p.URL},
		map[string]any{"authToken": "tw-auth-token"}))
	reqs := p.requests()
	require.Len(t, reqs, 2)
	for i, to := range []string{"+4915112345678", "+14155550123"} {
		r := reqs[i]
		require.Equal(t, "/2010-04-01/Accounts/"+sid+"/Messages.json", r.Path)
		require.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
		user, pass, ok := (&http.Request{Header: r.Header}).BasicAuth()
		require.True(t, ok)
		require.Equal(t, []string{sid, "tw-auth-token"}, []string{user, pass})
		form, err := url.ParseQuery(r.Raw)
		require.NoError(t, err)
		require.Equal(t, url.Values{"To": {to}, "From": {"+14155550100"}, "Body": {"New consumer\nAda Lovelace signed up"}}, form)
	}
}

func TestPushPublishesToNtfy(t *testing.T) {
	t.Parallel()
	p := startProvider(t, 200, `{"id":"x"}`)
	require.NoError(t, send(t, testEnv(t), channels.KindPush, map[string]any{"topic": "shop-alerts", "priority": 4, "baseUrl": p.URL},
		map[string]any{"accessToken": "tk_secret"}))
	r := p.requests()[0]
	require.Equal(t, "/", r.Path)
	require.Equal(t, "Bearer tk_secret", r.Header.Get("Authorization"))
	require.Equal(t, map[string]any{"topic": "shop-alerts", "title": "New consumer", "message": "Ada Lovelace signed up", "priority": float64(4)}, r.JSON)
}

func TestWebhookIsSigned(t *testing.T) {
	t.Parallel()
	p := startProvider(t, 200, "")
	secret := strings.Repeat("s3cr3t-", 6)
	require.NoError(t, send(t, testEnv(t), channels.KindWebhook, map[string]any{"url": p.URL + "/in"}, map[string]any{"signingSecret": secret}))
	r := p.requests()[0]
	require.Equal(t, webhook.Signature(secret, []byte(r.Raw)), r.Header.Get(webhook.HeaderSignature))
	require.Equal(t, "d-1", r.Header.Get("webhook-id"))
	require.Equal(t, "1700000000", r.Header.Get("webhook-timestamp"))
	require.Equal(t, webhook.StandardSignature(secret, "d-1", 1700000000, []byte(r.Raw)), r.Header.Get("webhook-signature"))
	require.Equal(t, "consumers.created", r.JSON["event"])
	require.Equal(t, "Ada Lovelace signed up", r.JSON["body"])
	require.Equal(t, map[string]any{"name": "Ada"}, r.JSON["data"])
}

func TestSettingsChecked(t *testing.T) {
	t.Parallel()
	k, _ := channels.Lookup(channels.KindTelegram)
	probs := channels.Check(k, map[string]any{"chatId": "not a chat", "botToken": "x", "colour": "red"}, map[string]any{"baseUrl": "ftp://x"}, true)
	fields := map[string]bool{}
	for _, p := range probs {
		fields[p.Field] = true
	}
	for _, f := range []string{"settings.chatId", "settings.botToken", "settings.colour", "secrets.baseUrl", "secrets.botToken"} {
		require.True(t, fields[f], "%s refused: %+v", f, probs)
	}
	require.Len(t, channels.Names(), 11)
	m, _ := channels.Lookup(channels.KindMail)
	settings := map[string]any{"host": "smtp.example.com", "from": "shop@example.com", "to": []any{"a@example.com"}}
	require.Empty(t, channels.Check(m, settings, map[string]any{}, true))
	require.EqualValues(t, 587, settings["port"], "default filled in")
	require.NotEmpty(t, channels.Check(m, map[string]any{"host": "h", "from": "x", "to": []any{"nope"}, "port": 70000}, nil, true))
}
