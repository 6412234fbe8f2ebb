package llmtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/llm/llmtest"
)

func post(t *testing.T, srv *llmtest.Server, body any) (int, string) {
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", bytes.NewReader(raw))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

func user(content string) []map[string]string {
	return []map[string]string{{"role": "user", "content": content}}
}

func TestServerRefusesBadShapes(t *testing.T) {
	for name, body := range map[string]map[string]any{
		"unknown field":  {"model": "m", "messages": user("hi"), "tools": []string{}},
		"no model":       {"messages": user("hi")},
		"no messages":    {"model": "m", "messages": []string{}},
		"bad role":       {"model": "m", "messages": []map[string]string{{"role": "tool", "content": "x"}}},
		"content parts":  {"model": "m", "messages": []map[string]any{{"role": "user", "content": []string{"x"}}}},
		"hot":            {"model": "m", "messages": user("hi"), "temperature": 3},
		"format":         {"model": "m", "messages": user("hi"), "response_format": map[string]string{"type": "yaml"}},
		"JSON not named": {"model": "m", "messages": user("hi"), "response_format": map[string]string{"type": "json_object"}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t)
			status, resp := post(t, srv, body)
			assert.Equal(t, http.StatusBadRequest, status, resp)
			assert.Contains(t, resp, `"type":"invalid_request_error"`)
			assert.Len(t, srv.Requests(), 1, "refused requests are recorded too")
		})
	}
}

func TestServerEchoes(t *testing.T) {
	srv := llmtest.New(t)
	status, resp := post(t, srv, map[string]any{"model": "m", "messages": user("a json topic"), "response_format": map[string]string{"type": "json_object"}})
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"id": "chatcmpl-test", "object": "chat.completion", "model": "m",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"echo\":\"a json topic\",\"model\":\"m\"}"}, "finish_reason": "stop"}],
		"usage": {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}}`, resp)
}

func TestServerChecksTheKey(t *testing.T) {
	srv := llmtest.New(t)
	raw, _ := json.Marshal(map[string]any{"model": "m", "messages": user("hi")})
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", bytes.NewReader(raw))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

func TestServerAnswersQueueThenFunction(t *testing.T) {
	srv := llmtest.New(t)
	srv.Queue(llmtest.Reply{Status: 429, RetryAfter: "1"}, llmtest.Reply{Content: "queued"})
	srv.Answer(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "fn:" + r.User()} })
	body := map[string]any{"model": "m", "messages": user("hi")}
	for _, want := range []string{`"code":null`, `"content":"queued"`, `"content":"fn:hi"`, `"content":"fn:hi"`} {
		_, resp := post(t, srv, body)
		assert.Contains(t, resp, want)
	}
}
