package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/llm"
	"platform/kernel/llm/llmtest"
	"platform/kernel/outbound"
)

// guarded is the platform's outbound client with the loopback test
// server opened, as PLATFORM_OUTBOUND_ALLOW opens it in development.
func guarded(t *testing.T) *http.Client {
	g, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	return g.Client(5 * time.Second)
}

func newOpenAI(t *testing.T, srv *llmtest.Server, timeout time.Duration) *llm.OpenAI {
	o, err := llm.New(llm.Config{URL: srv.URL(), Key: srv.Key, Model: "gpt-test", Timeout: timeout}, guarded(t))
	require.NoError(t, err)
	return o
}

// ask is a request for blocks as the CMS sends it.
func ask(topic string) llm.Request {
	return llm.Request{
		System:   `Answer a JSON object {"blocks": [...]}.`,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: topic}},
		JSON:     true,
	}
}

func TestCompleteAsksForJSON(t *testing.T) {
	srv := llmtest.New(t)
	srv.Queue(llmtest.Reply{Content: `{"blocks": [{"type": "text"}]}`})
	req := ask("Tides of the North Sea")
	temp := 0.2
	req.Temperature, req.MaxTokens, req.Model = &temp, 2000, "gpt-4o-mini"
	got, err := newOpenAI(t, srv, 0).Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, llm.Response{
		Text: `{"blocks": [{"type": "text"}]}`, Model: "gpt-4o-mini", FinishReason: "stop",
		PromptTokens: 11, CompletionTokens: 3, // words
	}, got)

	sent := srv.Requests()
	require.Len(t, sent, 1)
	assert.Equal(t, "Bearer "+srv.Key, sent[0].Auth)
	assert.Equal(t, "gpt-4o-mini", sent[0].Model)
	assert.Equal(t, []llm.Message{
		{Role: "system", Content: req.System},
		{Role: "user", Content: "Tides of the North Sea"},
	}, sent[0].Messages)
	assert.Equal(t, &temp, sent[0].Temperature)
	assert.Equal(t, 2000, sent[0].MaxTokens)
	assert.True(t, sent[0].JSON())
}

func TestCompleteDefaults(t *testing.T) {
	srv := llmtest.New(t)
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	got, err := newOpenAI(t, srv, 0).Complete(context.Background(), req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"echo": "hi", "model": "gpt-test"}`, got.Text, "the echo, with the configured model")
	sent := srv.Requests()[0]
	assert.Len(t, sent.Messages, 1, "no empty system message")
	assert.Nil(t, sent.Temperature)
	assert.Zero(t, sent.MaxTokens)
	assert.Nil(t, sent.ResponseFormat)
}

func TestCompleteKeepsTheConversation(t *testing.T) {
	srv := llmtest.New(t)
	srv.Answer(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: strings.ToUpper(r.User())}
	})
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "first"},
		{Role: llm.RoleAssistant, Content: "answer"},
		{Role: llm.RoleUser, Content: "second"},
	}}
	got, err := newOpenAI(t, srv, 0).Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "SECOND", got.Text)
	assert.Equal(t, req.Messages, srv.Requests()[0].Messages)
}

func TestCompleteRefusesOutOfBoundsBeforeSending(t *testing.T) {
	user := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	temp := func(v float64) *float64 { return &v }
	for name, req := range map[string]llm.Request{
		"long model":       {Model: strings.Repeat("m", 201), Messages: user},
		"no messages":      {},
		"51 messages":      {Messages: make([]llm.Message, 51)},
		"system role":      {Messages: []llm.Message{{Role: "system", Content: "x"}}},
		"empty role":       {Messages: []llm.Message{{Content: "x"}}},
		"prompt too large": {System: strings.Repeat("s", 100_000), Messages: []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("u", 100_001)}}},
		"negative tokens":  {Messages: user, MaxTokens: -1},
		"too many tokens":  {Messages: user, MaxTokens: 32769},
		"hot":              {Messages: user, Temperature: temp(2.01)},
		"cold":             {Messages: user, Temperature: temp(-0.1)},
		"NaN":              {Messages: user, Temperature: temp(nan())},
		"JSON unsaid":      {Messages: user, JSON: true},
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t)
			_, err := newOpenAI(t, srv, 0).Complete(context.Background(), req)
			assert.ErrorIs(t, err, llm.ErrInvalid)
			assert.Empty(t, srv.Requests(), "nothing sent")
		})
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestCompleteNeedsAModel(t *testing.T) {
	srv := llmtest.New(t)
	o, err := llm.New(llm.Config{URL: srv.URL(), Key: srv.Key}, guarded(t))
	require.NoError(t, err)
	_, err = o.Complete(context.Background(), ask("x"))
	assert.ErrorIs(t, err, llm.ErrInvalid)
	assert.ErrorContains(t, err, "Config.Model")
	assert.Empty(t, srv.Requests())
}

func TestCompleteAcceptsTheBounds(t *testing.T) {
	srv := llmtest.New(t)
	msgs := make([]llm.Message, 50)
	for i := range msgs {
		msgs[i] = llm.Message{Role: llm.RoleUser, Content: strings.Repeat("w ", 2000)} // 4000 bytes
	}
	zero := 0.0
	req := llm.Request{Model: strings.Repeat("m", 200), Messages: msgs, MaxTokens: 32768, Temperature: &zero}
	_, err := newOpenAI(t, srv, 0).Complete(context.Background(), req)
	require.NoError(t, err)
}

func TestNewValidates(t *testing.T) {
	client := &http.Client{}
	for _, cfg := range []llm.Config{
		{URL: "", Key: "k"},
		{URL: "ftp://api.openai.com/v1", Key: "k"},
		{URL: "https://", Key: "k"},
		{URL: "https://api.openai.com/v1", Key: " "},
		{URL: "https://api.openai.com/v1", Key: "k", Model: strings.Repeat("m", 201)},
	} {
		_, err := llm.New(cfg, client)
		assert.Error(t, err, "%+v", cfg)
	}
	_, err := llm.New(llm.Config{URL: "https://api.openai.com/v1", Key: "k"}, nil)
	assert.Error(t, err)
	_, err = llm.New(llm.Config{URL: "http://localhost:11434/v1/", Key: "ollama"}, client)
	assert.NoError(t, err)
}
