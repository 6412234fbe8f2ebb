package oauth

import (
	"maps"
	"time"

	"github.com/ory/fosite"

	"platform/kernel/store"
)

// Session is what a grant carries from consent to every token of its
// family: who signed in, for which customer, and the token expiries fosite
// sets. It is stored with codes and tokens (see requestDoc).
type Session struct {
	Customer  string
	User      string // empty for client_credentials
	AuthTime  time.Time
	ExpiresAt map[fosite.TokenType]time.Time
}

var _ fosite.Session = (*Session)(nil)

// SetExpiresAt implements fosite.Session.
func (s *Session) SetExpiresAt(key fosite.TokenType, exp time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[key] = exp
}

// GetExpiresAt implements fosite.Session.
func (s *Session) GetExpiresAt(key fosite.TokenType) time.Time { return s.ExpiresAt[key] }

// GetUsername implements fosite.Session.
func (s *Session) GetUsername() string { return s.User }

// GetSubject implements fosite.Session.
func (s *Session) GetSubject() string { return s.User }

// Clone implements fosite.Session.
func (s *Session) Clone() fosite.Session {
	c := *s
	c.ExpiresAt = maps.Clone(s.ExpiresAt)
	return &c
}

func (s *Session) doc() store.Doc {
	exp := store.Doc{}
	for k, v := range s.ExpiresAt {
		exp[string(k)] = v.UTC()
	}
	return store.Doc{"customer": s.Customer, "user": s.User, "authTime": s.AuthTime.UTC(), "expiresAt": exp}
}

func sessionOf(d store.Doc) *Session {
	s := &Session{ExpiresAt: map[fosite.TokenType]time.Time{}}
	s.Customer, _ = d["customer"].(string)
	s.User, _ = d["user"].(string)
	s.AuthTime, _ = d["authTime"].(time.Time)
	exp, _ := d["expiresAt"].(store.Doc)
	for k, v := range exp {
		if t, ok := v.(time.Time); ok {
			s.ExpiresAt[fosite.TokenType(k)] = t
		}
	}
	return s
}
