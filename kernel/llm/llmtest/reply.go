package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// reply writes rep, the answer programmed for req.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	if rep.Hang {
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		writeError(w, http.StatusServiceUnavailable, "", "hung up")
		return
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		writeError(w, rep.Status, rep.Code, rep.Message)
		return
	}
	writeJSON(w, http.StatusOK, completion(req, rep))
}

// completion is the chat-completions answer of rep; tokens are counted
// as words, which is deterministic and close enough.
func completion(req Request, rep Reply) map[string]any {
	var content any // null when empty, as a filtered answer
	if rep.Content != "" {
		content = rep.Content
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
	}
	choices := []map[string]any{{
		"index":         0,
		"message":       map[string]any{"role": "assistant", "content": content},
		"finish_reason": finish,
	}}
	if rep.NoChoices {
		choices = []map[string]any{}
	}
	return map[string]any{
		"id":      "chatcmpl-test",
		"object":  "chat.completion",
		"model":   req.Model,
		"choices": choices,
		"usage":   usage(req, rep.Content),
	}
}

func usage(req Request, answer string) map[string]int {
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	done := len(strings.Fields(answer))
	return map[string]int{"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}
}

// echo is the answer when none is programmed: valid JSON (so JSON mode
// is honoured) that shows what the model was asked.
func echo(req Request) Reply {
	out, _ := json.Marshal(map[string]string{"echo": req.User(), "model": req.Model}) // strings always encode
	return Reply{Content: string(out)}
}

// writeError writes an OpenAI error body; code "" is null.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	typ := "invalid_request_error"
	switch {
	case code == "insufficient_quota":
		typ = code
	case status >= 500:
		typ = "server_error"
	}
	var c any
	if code != "" {
		c = code
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
