package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/coder/websocket"

	"platform/kernel/auth"
	"platform/kernel/events"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// maxPatternLen bounds one subscription pattern (as a webhook's events).
const maxPatternLen = 200

// session is what a connection starts with: its principal and token (from
// the header or the first message), subscriptions and resume point.
type session struct {
	principal *auth.Principal
	token     string
	patterns  []string
	lastID    string
}

// Prepare checks a request before the upgrade: the resume point and
// subscriptions of its query (never a token: a query string lands in
// logs), and, when the Authorization header carried a token (the gateway
// verified it: auth.From), the rights of the subscriptions and the
// customer's connection limit. Without a header the token must come in
// the first message.
func (h *Hub) Prepare(r *http.Request) (http.HandlerFunc, error) {
	q := r.URL.Query()
	if q.Has("token") || q.Has("access_token") {
		return nil, &RequestError{Status: http.StatusBadRequest, Code: resource.CodeMalformed, Field: "token",
			Message: "a token in the URL lands in logs: send it as Authorization: Bearer <token> or in the first message {\"type\":\"auth\",\"token\":...}"}
	}
	s := &session{principal: auth.From(r.Context())}
	if err := s.parseQuery(h, q.Get("events"), q.Get("lastEventId")); err != nil {
		return nil, err
	}
	if s.principal != nil {
		s.token, _ = bearerToken(r.Header.Get("Authorization"))
		if err := h.checkRights(s.principal, s.patterns); err != nil {
			return nil, err
		}
		if err := h.admit(s.principal.Customer); err != nil {
			return nil, err
		}
	}
	return func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, s) }, nil
}

// parseQuery takes the comma-separated subscriptions (default "*") and
// the resume point.
func (s *session) parseQuery(h *Hub, patterns, lastID string) *RequestError {
	var list []string
	for _, p := range strings.Split(patterns, ",") {
		if p = strings.TrimSpace(p); p != "" {
			list = append(list, p)
		}
	}
	return s.set(h, list, lastID)
}

func (s *session) set(h *Hub, patterns []string, lastID string) *RequestError {
	if len(patterns) == 0 {
		patterns = []string{"*"}
	}
	if err := h.checkPatterns(nil, patterns); err != nil {
		return err
	}
	lastID = strings.ToLower(lastID)
	if lastID != "" && !store.ValidID(lastID) {
		return &RequestError{Status: http.StatusBadRequest, Code: resource.CodeBadID, Field: "lastEventId", CloseCode: closePolicy,
			Message: "lastEventId must be the id of an event received before (24 hexadecimal characters)"}
	}
	s.patterns, s.lastID = patterns, lastID
	return nil
}

// checkPatterns refuses patterns that select no known event and more than
// MaxSubscriptions in all (with those the connection has).
func (h *Hub) checkPatterns(have, add []string) *RequestError {
	all := union(have, add)
	if len(all) > h.opt.MaxSubscriptions {
		return &RequestError{Status: http.StatusBadRequest, Code: resource.CodeRange, Field: "events", CloseCode: closePolicy,
			Message: "a connection subscribes to at most %d patterns", Args: []any{h.opt.MaxSubscriptions}}
	}
	known := h.deps.Registry.EventNames()
	for _, p := range add {
		why := "is longer than 200 characters"
		if len(p) <= maxPatternLen {
			why = events.CheckPattern(p, known)
		}
		if why != "" {
			return &RequestError{Status: http.StatusBadRequest, Code: codeSubscription, Field: "events", CloseCode: closePolicy,
				Message: "%.200s %s", Args: []any{p, why}}
		}
	}
	return nil
}

// checkRights refuses a subscription to one resource's events when the
// token may not view that resource: it would never receive anything.
// "*" selects whatever the token may view.
func (h *Hub) checkRights(p *auth.Principal, patterns []string) *RequestError {
	for _, pat := range patterns {
		if pat == "*" {
			continue
		}
		plural, _, _ := strings.Cut(pat, ".")
		if right := h.viewRight(plural + "."); !p.Allows(right) {
			return &RequestError{Status: http.StatusForbidden, Code: resource.CodeScope, Field: "events", CloseCode: closePolicy,
				Message: "%s needs the right %q, which the token's scope does not grant", Args: []any{pat, right}}
		}
	}
	return nil
}

// viewRight is the right to see an event's resource ("" for an event of
// no resource: nobody sees it).
func (h *Hub) viewRight(eventName string) string {
	plural, _, _ := strings.Cut(eventName, ".")
	r := h.deps.Registry.ByPlural(plural)
	if r == nil {
		return ""
	}
	return r.Right("view")
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func bearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// serve upgrades the connection, authenticates it by its first message
// when the header had no token, and runs it.
func (h *Hub) serve(w http.ResponseWriter, r *http.Request, s *session) {
	// Any origin: the token is sent explicitly (header or first message),
	// never by the browser on its own like a cookie, so a foreign page
	// cannot ride a user's session (no cross-site WebSocket hijacking).
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: []string{"*"}})
	if err != nil {
		if s.principal != nil {
			h.release(s.principal.Customer)
		}
		return // Accept answered the client
	}
	conn.SetReadLimit(h.opt.MaxMessage)
	if s.principal == nil {
		if rerr := h.authenticate(r.Context(), conn, s); rerr != nil {
			_ = conn.Close(rerr.CloseCode, closeReason(rerr.Text()))
			return
		}
	}
	defer h.release(s.principal.Customer)
	newClient(h, conn, s).run()
}

// authenticate reads the first message, {"type":"auth","token":...} with
// optional events and lastEventId, within AuthTimeout.
func (h *Hub) authenticate(ctx context.Context, conn *websocket.Conn, s *session) *RequestError {
	ctx, cancel := context.WithTimeout(ctx, h.opt.AuthTimeout)
	defer cancel()
	refuse := func(msg string) *RequestError {
		return &RequestError{Status: http.StatusUnauthorized, Code: "auth.token", CloseCode: closePolicy, Message: msg}
	}
	_, b, err := conn.Read(ctx)
	if err != nil {
		return refuse("no auth message within the time-out: send {\"type\":\"auth\",\"token\":...} first")
	}
	var m clientMessage
	if json.Unmarshal(b, &m) != nil || m.Type != TypeAuth || m.Token == "" {
		return refuse("the first message must be {\"type\":\"auth\",\"token\":...}")
	}
	p, err := h.deps.Verifier.Verify(ctx, m.Token)
	switch {
	case errors.Is(err, auth.ErrInvalidToken):
		return refuse("the access token is invalid, expired or revoked")
	case err != nil:
		return &RequestError{Status: http.StatusServiceUnavailable, Code: resource.CodeUnavailable, CloseCode: closeTryAgain, Message: "token verification is unavailable"}
	}
	if m.Events != nil || m.LastEventID != "" {
		if rerr := s.set(h, m.Events, m.LastEventID); rerr != nil {
			return rerr
		}
	}
	if rerr := h.checkRights(p, s.patterns); rerr != nil {
		return rerr
	}
	if rerr := h.admit(p.Customer); rerr != nil {
		return rerr
	}
	s.principal, s.token = p, m.Token
	return nil
}
