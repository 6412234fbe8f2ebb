package adsim

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// authorize approves at once: it redirects to redirect_uri with a code
// bound to the PKCE challenge and the redirect URI.
func (s *Sim) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case q.Get("client_id") != s.ClientID:
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	case err != nil || redirect.Host == "" || q.Get("response_type") != "code":
		http.Error(w, "redirect_uri and response_type=code are required", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE with S256 is required", http.StatusBadRequest)
		return
	}
	code := random()
	s.mu.Lock()
	s.grants[code] = grant{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
	s.mu.Unlock()
	back := redirect.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token,omitempty"`
	ExpiresIn    int    `json:"expires_in"`
	TokenType    string `json:"token_type"`
	Scope        string `json:"scope,omitempty"`
}

// token serves both grants of the token endpoint.
func (s *Sim) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	if r.PostForm.Get("client_id") != s.ClientID || subtle.ConstantTimeCompare([]byte(r.PostForm.Get("client_secret")), []byte(s.ClientSecret)) != 1 {
		oauthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.exchange(w, r.PostForm)
	case "refresh_token":
		s.refreshGrant(w, r.PostForm.Get("refresh_token"))
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
	}
}

func (s *Sim) exchange(w http.ResponseWriter, f url.Values) {
	g, ok := s.grants[f.Get("code")]
	delete(s.grants, f.Get("code")) // single use
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	if !ok || g.redirect != f.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		oauthError(w, http.StatusBadRequest, "invalid_grant")
		return
	}
	s.stats.CodeExchanges++
	rt := "1//" + random()
	s.refresh[rt] = true
	s.issue(w, rt)
}

func (s *Sim) refreshGrant(w http.ResponseWriter, rt string) {
	if !s.refresh[rt] {
		oauthError(w, http.StatusBadRequest, "invalid_grant")
		return
	}
	s.stats.Refreshes++
	s.issue(w, "")
}

func (s *Sim) issue(w http.ResponseWriter, refresh string) {
	at := "ya29." + random()
	s.access[at] = time.Now().Add(s.AccessTTL)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(tokenAnswer{AccessToken: at, RefreshToken: refresh, ExpiresIn: int(s.AccessTTL / time.Second), TokenType: "Bearer",
		Scope: "https://www.googleapis.com/auth/adwords"})
}

func oauthError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}
