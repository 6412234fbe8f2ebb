package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// maxBody bounds a request body: llm's prompt bound with room for JSON
// escapes.
const maxBody = 4 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "", "no such endpoint: "+r.Method+" "+r.URL.Path)
		return
	}
	req, status, code, msg := s.parse(r)
	if status != 0 {
		writeError(w, status, code, msg)
		return
	}
	s.reply(w, r, req, s.next(req))
}

// parse reads and records the request; a status when it is refused.
func (s *Server) parse(r *http.Request) (req Request, status int, code, msg string) {
	req.Auth = r.Header.Get("Authorization")
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields() // OpenAI refuses arguments it does not know
		err = dec.Decode(&req)
	}
	s.record(req)
	switch {
	case req.Auth != "Bearer "+s.Key:
		return req, http.StatusUnauthorized, "invalid_api_key", "Incorrect API key provided: " + mask(req.Auth) + "."
	case len(body) > maxBody:
		return req, http.StatusRequestEntityTooLarge, "", "Request body too large."
	case !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
		return req, http.StatusBadRequest, "", "Content-Type is not application/json."
	case err != nil:
		return req, http.StatusBadRequest, "", "We could not parse the JSON body of your request: " + err.Error()
	}
	if reason := badRequest(req); reason != "" {
		return req, http.StatusBadRequest, "invalid_value", reason
	}
	return req, 0, "", ""
}

// badRequest is why a provider would refuse req's shape ("" when fine).
func badRequest(req Request) string {
	switch {
	case req.Model == "":
		return "you must provide a model parameter"
	case len(req.Messages) == 0:
		return "'messages' must contain at least one message"
	case req.Temperature != nil && (*req.Temperature < 0 || *req.Temperature > 2):
		return "'temperature' must be between 0 and 2"
	case req.MaxTokens < 0:
		return "'max_tokens' must be at least 1"
	case req.ResponseFormat != nil && req.ResponseFormat.Type != "text" && !req.JSON():
		return "Invalid value for 'response_format.type': " + req.ResponseFormat.Type
	case req.JSON() && !mentionsJSON(req):
		return "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
	}
	for _, m := range req.Messages {
		if m.Role != "system" && m.Role != "user" && m.Role != "assistant" {
			return "Invalid value for 'role': " + m.Role
		}
	}
	return ""
}

func mentionsJSON(req Request) bool {
	for _, m := range req.Messages {
		if strings.Contains(strings.ToLower(m.Content), "json") {
			return true
		}
	}
	return false
}
