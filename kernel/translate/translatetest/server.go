// Package translatetest is a local stand-in for the DeepL API v2 for
// tests: New starts an HTTP server that checks each request the way
// DeepL does (auth header, JSON shape, at most 50 texts, 128 KiB) and
// answers a deterministic "translation": every word outside markup
// prefixed with the target code in lower case ("Hello" to "de:Hello"),
// tags, entities and ignored elements (ignore_tags, translate="no") left
// as they are. Fail makes it answer errors or hang; Requests shows what
// it was sent. Words is an in-process provider for tests that need no
// HTTP.
package translatetest

import (
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Hang, given to Fail as the status, makes requests hang until the
// client gives up (or the test ends).
const Hang = -1

// Server is a fake DeepL API.
type Server struct {
	// Key is the only auth key the server accepts; a random one per server.
	Key string

	srv        *httptest.Server
	release    chan struct{} // closed at the end of the test: hung requests return
	mu         sync.Mutex
	requests   []Request
	failures   []int // statuses the next requests answer, in order
	retryAfter string
}

// Request is one request the server got, as DeepL reads it.
type Request struct {
	Auth        string   `json:"-"` // the Authorization header
	Text        []string `json:"text"`
	TargetLang  string   `json:"target_lang"`
	SourceLang  string   `json:"source_lang"`
	TagHandling string   `json:"tag_handling"`
	IgnoreTags  []string `json:"ignore_tags"`
}

// New starts a server that stops when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{Key: "tt-" + rand.Text(), release: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.release) }) // runs first: Close waits for hung handlers
	return s
}

// URL is the base URL to configure (no /v2).
func (s *Server) URL() string { return s.srv.URL }

// Fail makes the next n requests answer status (403, 429, 456, 500, ...)
// with a DeepL-style {"message"} body, or hang when status is Hang.
func (s *Server) Fail(status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, status)
	}
}

// RetryAfter sets the Retry-After header of the 429 and 5xx answers Fail
// orders ("" for none).
func (s *Server) RetryAfter(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retryAfter = v
}

// Requests returns the requests received so far, failed ones included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// nextFailure pops the status the current request answers (0: none).
func (s *Server) nextFailure() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.failures) == 0 {
		return 0, ""
	}
	status := s.failures[0]
	s.failures = s.failures[1:]
	return status, s.retryAfter
}
