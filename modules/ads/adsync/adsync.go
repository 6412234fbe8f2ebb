// Package adsync is the ads module's service: connecting an account by
// OAuth (the state and the stored refresh token), the sync of entities
// and daily metrics from the platform, and the push of changes made
// through the API, with conflict detection. The module's declarations
// (package ads) and the activities (activities/ads) both call it; every
// record it writes goes through the record service.
package adsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/ads/adsapi"
	"platform/modules/config/credentials"
)

// Module is the module's name; the resources' plurals follow.
const (
	Module      = "ads"
	Connections = "adconnections"
	Campaigns   = "campaigns"
	AdGroups    = "adgroups"
	Keywords    = "keywords"
	Metrics     = "metrics"
	// StatesCollection holds the pending authorizations (global: the
	// callback learns the customer from the state).
	StatesCollection = "adsoauthstates"
)

// Connection states.
const (
	StatePending      = "pending"      // created, not authorized yet
	StateConnected    = "connected"    // a refresh token is stored
	StateError        = "error"        // the platform refused the grant: connect again
	StateDisconnected = "disconnected" // disconnected through the API
)

// ConnectionStates lists them.
var ConnectionStates = []string{StatePending, StateConnected, StateError, StateDisconnected}

// Sync states of a campaign or ad group.
const (
	SyncPending  = "pending"  // changed here, not pushed yet
	SyncSynced   = "synced"   // as the platform has it
	SyncConflict = "conflict" // changed on both sides: see conflict
	SyncError    = "error"    // the push failed for good: see syncError
)

// SyncStates lists them.
var SyncStates = []string{SyncPending, SyncSynced, SyncConflict, SyncError}

// Events of the connections and records.
const (
	EventConnected    = "connected"
	EventSynced       = "synced"
	EventFailed       = "failed"
	EventDisconnected = "disconnected"
	EventConflicted   = "conflicted"
	EventPushed       = "pushed"
)

// Errors a caller tells apart.
var (
	ErrNoProvider = errors.New("ads: no advertising platform is configured (PLATFORM_ADS_API_URL)")
	ErrNoVault    = errors.New("ads: credential storage is off (PLATFORM_MASTER_KEY): the refresh token cannot be kept")
)

// Schedules keep the sync schedule of each connected account.
type Schedules interface {
	Put(ctx context.Context, connectionID string) error
	Remove(ctx context.Context, connectionID string) error
}

// WorkflowStarter starts a workflow once under its id.
type WorkflowStarter = resource.WorkflowStarter

// Service is the ads service.
type Service struct {
	Records   *resource.Service
	Vault     *credentials.Vault
	Provider  adsapi.Provider // nil: no platform configured
	Schedules Schedules       // nil: no Temporal (the declarations alone)
	// RedirectURL is the callback the platform sends the user back to.
	RedirectURL string
	// StateTTL is how long an authorization may take.
	StateTTL time.Duration
	// MetricDays is how many days of metrics the first sync reads.
	MetricDays int
	// RevisitDays are the days before the last synced one read again (the
	// platform revises recent days' numbers).
	RevisitDays int
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// resource finds a declaration of the module.
func (s *Service) resource(plural string) *resource.Resource {
	return s.Records.Registry.Get(Module, plural)
}

// DerivedID is the record id of a platform entity or metric row: the same
// for the same parts, so a sync rewrites a record instead of adding one.
func DerivedID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// connection reads a connection record.
func (s *Service) connection(ctx context.Context, id string) (store.Doc, error) {
	return s.Records.Load(ctx, s.resource(Connections), id)
}

// account is the platform account of a connected connection, with its
// refresh token opened from the vault.
func (s *Service) account(ctx context.Context, conn store.Doc) (adsapi.Account, error) {
	if s.Provider == nil {
		return adsapi.Account{}, ErrNoProvider
	}
	if s.Vault == nil {
		return adsapi.Account{}, ErrNoVault
	}
	credID, _ := conn["credential"].(string)
	if conn["state"] != StateConnected || credID == "" {
		return adsapi.Account{}, fmt.Errorf("%w: the connection is %v", adsapi.ErrRevoked, conn["state"])
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return adsapi.Account{}, err
	}
	doc, err := s.Records.Store.Collection(credentials.Collection).Get(ctx, credID)
	if err != nil {
		return adsapi.Account{}, fmt.Errorf("ads: the connection's credential %s: %w", credID, err)
	}
	sealed, _ := doc[credentials.Field].(map[string]any)
	plain, err := s.Vault.Open(cust, credID, sealed)
	if err != nil {
		return adsapi.Account{}, fmt.Errorf("ads: the connection's credential %s does not open: %w", credID, err)
	}
	rt, _ := plain["refresh_token"].(string)
	cid, _ := conn["customerId"].(string)
	login, _ := conn["loginCustomerId"].(string)
	return adsapi.Account{CustomerID: cid, LoginCustomerID: login, RefreshToken: rt}, nil
}

func str(v any) string { s, _ := v.(string); return s }
