// Package llmtest is a local stand-in for an OpenAI-compatible
// chat-completions API for tests: New starts an HTTP server that checks
// each request the way the providers do (bearer key, JSON shape, the
// word "JSON" when a JSON object is asked for) and answers what the
// test programs with Queue or Answer; without either it echoes the last
// user message as a JSON object, {"echo": "...", "model": "..."}.
// Requests shows what it was sent, refused requests included.
package llmtest

import (
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"platform/kernel/llm"
)

// Server is a fake chat-completions API.
type Server struct {
	// Key is the only key the server accepts; a random one per server.
	Key string

	srv     *httptest.Server
	release chan struct{} // closed at the end of the test: hung requests return
	mu      sync.Mutex
	recv    []Request
	queue   []Reply
	answer  func(Request) Reply
}

// Request is one request the server got, as the provider reads it.
type Request struct {
	Auth           string        `json:"-"` // the Authorization header
	Model          string        `json:"model"`
	Messages       []llm.Message `json:"messages"` // the system prompt first, with role "system"
	Temperature    *float64      `json:"temperature"`
	MaxTokens      int           `json:"max_tokens"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// JSON reports whether the request asks for a JSON object.
func (r Request) JSON() bool {
	return r.ResponseFormat != nil && r.ResponseFormat.Type == "json_object"
}

// System is the system prompt ("" for none).
func (r Request) System() string { return r.last("system") }

// User is the last user message ("" for none).
func (r Request) User() string { return r.last(llm.RoleUser) }

func (r Request) last(role string) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == role {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Reply is what the server answers one request.
type Reply struct {
	Content      string // the answer's text; "" answers "content": null
	FinishReason string // "" means "stop"; "length" is a cut answer
	NoChoices    bool   // answer "choices": []

	Status     int    // not 0 or 200: answer this status with an error body
	Code       string // the error body's code ("insufficient_quota", ...)
	Message    string // the error body's message; "" means the status text
	RetryAfter string // the Retry-After header of an error answer

	Hang bool // hold the request until the client gives up (or the test ends)
}

// New starts a server that stops when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{Key: "sk-test-" + rand.Text(), release: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.release) }) // runs first: Close waits for hung handlers
	return s
}

// URL is the API base to configure (llm.Config.URL), ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Queue makes the next requests answer replies, in order; requests
// refused for their key or shape do not take one.
func (s *Server) Queue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Answer makes fn answer the requests the queue does not (nil: the echo).
func (s *Server) Answer(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = fn
}

// Requests returns the requests received so far, refused ones included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.recv...)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recv = append(s.recv, r)
}

// next is the reply to r: the queue's first, else Answer's, else the echo.
func (s *Server) next(r Request) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		reply := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return reply
	}
	fn := s.answer
	s.mu.Unlock() // fn may call the server's methods
	if fn != nil {
		return fn(r)
	}
	return echo(r)
}

// mask is how OpenAI quotes a wrong key in its 401 message: a few
// characters of each end.
func mask(key string) string {
	key = strings.TrimPrefix(key, "Bearer ")
	if len(key) < 8 {
		return "***"
	}
	return key[:3] + "***" + key[len(key)-4:]
}
