// Package adsim is a local advertising platform that speaks the protocol
// of package adsapi (the REST API at version 23, docs/ads.md): the OAuth
// 2.0 authorization-code flow with PKCE (approved at once), token refresh,
// googleAds:search with page tokens, campaigns:mutate and adGroups:mutate,
// a 429 with Retry-After on demand, revoked refresh tokens (invalid_grant)
// and change times on every entity. Tests and `platform ads-sim` serve it;
// its methods play the platform's side (a change made there, new metrics).
package adsim

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"platform/modules/ads/adsapi"
)

// Paths of the OAuth endpoints below the simulator's base URL.
const (
	AuthPath  = "/oauth2/auth"
	TokenPath = "/oauth2/token"
)

// Stats count what the simulator served.
type Stats struct {
	CodeExchanges, Refreshes, Searches, Mutates, Throttled, Unauthorized, Failed int
}

// Sim is the simulated platform; the zero value is not usable: use New.
type Sim struct {
	ClientID, ClientSecret, DeveloperToken string
	// PageSize is the rows of one search page (the real API: 10,000).
	PageSize int
	// AccessTTL is the life of an access token.
	AccessTTL time.Duration

	mu         sync.Mutex
	grants     map[string]grant     // authorization codes
	refresh    map[string]bool      // refresh tokens: valid or revoked
	access     map[string]time.Time // access tokens: expiry
	accounts   map[string]*account
	throttle   int
	retryAfter int
	failAfter  int // searches to answer before one fails; -1: none
	nextID     int64
	last       time.Time
	stats      Stats
}

type grant struct{ challenge, redirect string }

type account struct {
	entities map[string]*adsapi.Entity // by resource name
	metrics  map[string]adsapi.MetricRow
}

// New is a simulator for the application clientID/clientSecret.
func New(clientID, clientSecret, developerToken string) *Sim {
	return &Sim{ClientID: clientID, ClientSecret: clientSecret, DeveloperToken: developerToken, PageSize: 1000, AccessTTL: time.Hour,
		grants: map[string]grant{}, refresh: map[string]bool{}, access: map[string]time.Time{}, accounts: map[string]*account{}, nextID: 1000, failAfter: -1}
}

// ServeHTTP serves the protocol.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == AuthPath && r.Method == http.MethodGet:
		s.authorize(w, r)
	case r.URL.Path == TokenPath && r.Method == http.MethodPost:
		s.token(w, r)
	case r.Method == http.MethodPost:
		s.api(w, r)
	default:
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such endpoint")
	}
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// now is the simulator's clock: strictly increasing, in microseconds, so
// every change has a change time of its own.
func (s *Sim) now() time.Time {
	t := time.Now().UTC().Truncate(time.Microsecond)
	if !t.After(s.last) {
		t = s.last.Add(time.Microsecond)
	}
	s.last = t
	return t
}

func (s *Sim) acct(cid string) *account {
	a := s.accounts[cid]
	if a == nil {
		a = &account{entities: map[string]*adsapi.Entity{}, metrics: map[string]adsapi.MetricRow{}}
		s.accounts[cid] = a
	}
	return a
}

// Put creates or changes an entity on the platform's side (a change made
// in the platform's own interface): it gets an id when it has none and a
// new change time. It answers the entity as stored.
func (s *Sim) Put(cid string, e adsapi.Entity) adsapi.Entity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.put(cid, e)
}

func (s *Sim) put(cid string, e adsapi.Entity) adsapi.Entity {
	if e.ID == "" {
		s.nextID++
		e.ID = strconv.FormatInt(s.nextID, 10)
	}
	switch e.Kind {
	case adsapi.KindCampaign:
		e.ResourceName = adsapi.CampaignResource(cid, e.ID)
	case adsapi.KindAdGroup:
		e.ResourceName = adsapi.AdGroupResource(cid, e.ID)
	default:
		e.ResourceName = adsapi.CriterionResource(cid, e.AdGroupID, e.ID)
	}
	e.LastModified = s.now()
	s.acct(cid).entities[e.ResourceName] = &e
	return e
}

// Entity reads an entity as the platform keeps it.
func (s *Sim) Entity(cid, resourceName string) (adsapi.Entity, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.acct(cid).entities[resourceName]
	if !ok {
		return adsapi.Entity{}, false
	}
	return *e, true
}

// PutMetrics sets daily rows (a later call for the same entity and day
// replaces the numbers, as the platform revises them).
func (s *Sim) PutMetrics(cid string, rows ...adsapi.MetricRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.acct(cid)
	for _, m := range rows {
		a.metrics[m.Level+"/"+m.EntityID+"/"+m.Date] = m
	}
}

// Throttle answers the next n API calls with 429 and Retry-After seconds.
func (s *Sim) Throttle(n, retryAfterSeconds int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttle, s.retryAfter = n, retryAfterSeconds
}

// FailAfter answers n more searches, then one with a 503 (a platform
// failing mid-sync, or a worker dying there: the page is asked again).
func (s *Sim) FailAfter(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failAfter = n
}

// RevokeAll revokes every refresh token (the user removed the grant).
func (s *Sim) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.refresh {
		s.refresh[t] = false
	}
}

// ExpireAccessTokens ends every access token now.
func (s *Sim) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
}

// Stats are the counters so far.
func (s *Sim) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// sorted lists the account's entities of kind by resource name.
func (a *account) sorted(kind string) []*adsapi.Entity {
	var out []*adsapi.Entity
	for _, e := range a.entities {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ResourceName < out[j].ResourceName })
	return out
}
