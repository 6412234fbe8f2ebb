package llm

import (
	"encoding/json"
	"strings"
)

// chatRequest is the JSON body of POST /chat/completions.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

// chatResponse is a successful answer. Content is a pointer: a filtered
// answer has "content": null.
type chatResponse struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// errorBody is a failed answer: {"error": {"message", "type", "code"}}.
// Code is a string at OpenAI, null or a number at some gateways.
type errorBody struct {
	Error struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	} `json:"error"`
}

// code is the error's code as text ("" when null or absent).
func (b errorBody) code() string {
	var s string
	if json.Unmarshal(b.Error.Code, &s) == nil {
		return s
	}
	if raw := strings.TrimSpace(string(b.Error.Code)); raw != "null" {
		return raw
	}
	return ""
}

func newChatRequest(r Request) chatRequest {
	msgs := make([]Message, 0, len(r.Messages)+1)
	if r.System != "" {
		msgs = append(msgs, Message{Role: "system", Content: r.System})
	}
	body := chatRequest{
		Model:       r.Model,
		Messages:    append(msgs, r.Messages...),
		Temperature: r.Temperature,
		MaxTokens:   r.MaxTokens,
	}
	if r.JSON {
		body.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	return body
}
