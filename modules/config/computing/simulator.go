package computing

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Simulator is a local compute provider speaking the protocol: every
// machine exists, stopped at first, and each move passes through its
// transitional state (pending, stopping, shutting-down) for Delay before
// it lands. Tests and local development run it on an httptest or local
// server; machines are kept per customer and id, in memory.
type Simulator struct {
	Delay time.Duration
	// Token, when set, must come as the bearer token (401 otherwise).
	Token string
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu       sync.Mutex
	machines map[string]*simMachine
	requests int
}

type simMachine struct {
	state, target string
	until         time.Time
}

var _ http.Handler = (*Simulator)(nil)

// ServeHTTP implements the protocol.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		simAnswer(w, http.StatusUnauthorized, map[string]string{"error": "a valid bearer token is required"})
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, machinesPath)
	id, action, _ := strings.Cut(rest, "/")
	switch {
	case !ok || id == "":
		simAnswer(w, http.StatusNotFound, map[string]string{"error": "no such path"})
	case r.Method == http.MethodGet && action == "":
		simAnswer(w, http.StatusOK, s.read(r.URL.Query().Get("customer"), id))
	case r.Method == http.MethodPost && action != "":
		s.move(w, r, id, action)
	default:
		simAnswer(w, http.StatusMethodNotAllowed, map[string]string{"error": "GET a machine or POST a move"})
	}
}

func (s *Simulator) move(w http.ResponseWriter, r *http.Request, id, action string) {
	var body moveBody
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil {
		simAnswer(w, http.StatusBadRequest, map[string]string{"error": "the body must be {\"type\": ..., \"customer\": ...}"})
		return
	}
	if action != Start && action != Stop && action != Terminate {
		simAnswer(w, http.StatusNotFound, map[string]string{"error": "no action " + action})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.machine(body.Customer, id)
	if Transitional(m.state) || !Allowed(action, m.state) {
		simAnswer(w, http.StatusConflict, map[string]string{"error": "the machine is " + m.state + "; it cannot " + action})
		return
	}
	s.requests++
	m.state, m.target, m.until = transitionOf(action), Target(action), s.now().Add(s.Delay)
	simAnswer(w, http.StatusAccepted, Machine{ID: id, State: m.state})
}

func transitionOf(action string) string {
	switch action {
	case Start:
		return Pending
	case Stop:
		return Stopping
	}
	return ShuttingDown
}

// read answers a machine, landing a move whose delay has passed.
func (s *Simulator) read(customer, id string) Machine {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Machine{ID: id, State: s.machine(customer, id).state}
}

// machine finds or makes a machine and lands its move when due; s.mu is held.
func (s *Simulator) machine(customer, id string) *simMachine {
	if s.machines == nil {
		s.machines = map[string]*simMachine{}
	}
	key := customer + "/" + id
	m := s.machines[key]
	if m == nil {
		m = &simMachine{state: Stopped}
		s.machines[key] = m
	}
	if m.target != "" && !s.now().Before(m.until) {
		m.state, m.target = m.target, ""
	}
	return m
}

// Set puts a machine into state at once, as a change made outside the
// platform (an operator terminating it in the cloud's console).
func (s *Simulator) Set(customer, id, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.machine(customer, id)
	m.state, m.target = state, ""
}

// State answers a machine's state as the provider has it.
func (s *Simulator) State(customer, id string) string { return s.read(customer, id).State }

// Requests counts the moves accepted.
func (s *Simulator) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *Simulator) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func simAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
