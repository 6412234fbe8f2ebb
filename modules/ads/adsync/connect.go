package adsync

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"golang.org/x/oauth2"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/ads/adsapi"
	"platform/modules/config/credentials"
)

// Authorization is where to send the user, and until when it is valid.
type Authorization struct {
	URL       string
	ExpiresAt time.Time
}

// Authorize starts the authorization of a connection: a state bound to
// the customer and the connection (single use, expiring) and a PKCE
// verifier kept with it; the answer is the platform's consent address.
func (s *Service) Authorize(ctx context.Context, connectionID string) (Authorization, error) {
	if s.Provider == nil {
		return Authorization{}, resource.Unavailable("no advertising platform is configured (PLATFORM_ADS_API_URL); ask the operator")
	}
	if s.Vault == nil {
		return Authorization{}, resource.Unavailable("credential storage is off (PLATFORM_MASTER_KEY): the refresh token could not be kept; ask the operator")
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return Authorization{}, err
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	state := base64.RawURLEncoding.EncodeToString(raw)
	verifier := oauth2.GenerateVerifier()
	exp := s.now().Add(s.StateTTL).Truncate(time.Millisecond)
	states := s.Records.Store.Global(StatesCollection)
	// Expired states of abandoned authorizations go on the way.
	_, _ = states.Delete(ctx, query.Field{Path: "expiresAt", Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: s.now()}}})
	if err := states.Insert(ctx, store.Doc{"_id": DerivedID("state", state), "customer": cust, "connection": connectionID,
		"verifier": verifier, "expiresAt": exp}); err != nil {
		return Authorization{}, resource.Unavailable("the authorization could not be stored; try again").WithCause(err)
	}
	return Authorization{URL: s.Provider.AuthCodeURL(state, verifier, s.RedirectURL), ExpiresAt: exp}, nil
}

// Callback finishes an authorization: it consumes the state, trades the
// code for a refresh token, stores the token as a credential in the vault,
// marks the connection connected and puts its sync schedule. platformErr
// is the platform's error parameter (the user declined).
func (s *Service) Callback(ctx context.Context, state, code, platformErr string) (context.Context, store.Doc, error) {
	st, err := s.consumeState(ctx, state)
	if err != nil {
		return ctx, nil, err
	}
	ctx = tenant.WithCustomer(ctx, str(st["customer"]))
	connID := str(st["connection"])
	conn, err := s.connection(ctx, connID)
	if err != nil {
		return ctx, nil, err
	}
	if platformErr != "" {
		return ctx, nil, s.refused(ctx, connID, "the platform answered "+platformErr+": access was not granted")
	}
	if code == "" {
		return ctx, nil, resource.InvalidField("code", "code is required: the platform sends it back with the state")
	}
	rt, err := s.Provider.Exchange(ctx, code, str(st["verifier"]), s.RedirectURL)
	if err != nil {
		return ctx, nil, s.exchangeFailed(ctx, connID, err)
	}
	credID, err := s.keepToken(ctx, conn, rt)
	if err != nil {
		return ctx, nil, err
	}
	doc, err := s.Records.Apply(ctx, s.resource(Connections), query.ID(connID), resource.Change{
		Set:   store.Doc{"state": StateConnected, "credential": credID, "connectedAt": s.now()},
		Unset: []string{"stateReason"}, Event: EventConnected})
	if err != nil {
		return ctx, nil, err
	}
	if s.Schedules != nil {
		if err := s.Schedules.Put(ctx, connID); err != nil {
			return ctx, nil, resource.Unavailable("the connection is stored but its sync schedule is not; authorize again").WithCause(err)
		}
	}
	return ctx, doc, nil
}

// consumeState takes the state out of the store (once) and checks it has
// not expired.
func (s *Service) consumeState(ctx context.Context, state string) (store.Doc, error) {
	if state == "" || len(state) > 200 {
		return nil, resource.InvalidField("state", "state is required and must be the value the authorization gave")
	}
	states := s.Records.Store.Global(StatesCollection)
	id := DerivedID("state", state)
	doc, err := states.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, resource.InvalidField("state", "the state is unknown or already used: start the authorization again")
	}
	if err != nil {
		return nil, resource.Unavailable("the authorization could not be read; try again").WithCause(err)
	}
	if n, err := states.Delete(ctx, query.ID(id)); err != nil || n == 0 {
		return nil, resource.InvalidField("state", "the state is already used: start the authorization again")
	}
	if exp, _ := doc["expiresAt"].(time.Time); !exp.After(s.now()) {
		return nil, resource.InvalidField("state", "the authorization expired: start it again")
	}
	return doc, nil
}

func (s *Service) refused(ctx context.Context, connID, reason string) error {
	_, err := s.Records.Apply(ctx, s.resource(Connections), query.ID(connID), resource.Change{
		Set: store.Doc{"state": StateError, "stateReason": reason}, Event: EventFailed})
	if err != nil {
		return err
	}
	return resource.InvalidField("error", "%s", reason)
}

func (s *Service) exchangeFailed(ctx context.Context, connID string, err error) error {
	if errors.Is(err, adsapi.ErrRevoked) {
		return s.refused(ctx, connID, "the platform refused the authorization code (invalid_grant): it expired or was used; authorize again")
	}
	return resource.Unavailable("the platform's token endpoint did not answer; authorize again").WithCause(err)
}

// keepToken stores the refresh token as the connection's credential
// (sealed by the vault), replacing the one of an earlier authorization.
func (s *Service) keepToken(ctx context.Context, conn store.Doc, refreshToken string) (string, error) {
	creds := s.Records.Registry.Get("config", credentials.Collection)
	if creds == nil {
		return "", resource.Unavailable("the credential store is not mounted")
	}
	values := map[string]any{"refresh_token": refreshToken}
	if id := str(conn["credential"]); id != "" {
		if _, err := s.Records.Patch(ctx, creds, id, map[string]any{"credentials": values}); err == nil {
			_, err = s.Records.Apply(ctx, creds, query.ID(id), resource.Change{Set: store.Doc{"_status": credentials.StatusActive}})
			return id, err
		} else if resource.KindOf(err) != resource.KindNotFound {
			return "", err
		}
	}
	doc, err := s.Records.Create(ctx, creds, map[string]any{"name": "ads-connection-" + str(conn["_id"]), "type": "oauth2", "credentials": values})
	if err != nil {
		return "", err
	}
	return str(doc["_id"]), nil
}

// Disconnect ends a connection: its schedule goes, its credential is
// marked revoked, and the connection is disconnected.
func (s *Service) Disconnect(ctx context.Context, conn store.Doc) (store.Doc, error) {
	id := str(conn["_id"])
	if s.Schedules != nil {
		if err := s.Schedules.Remove(ctx, id); err != nil {
			return nil, resource.Unavailable("the sync schedule could not be removed; try again").WithCause(err)
		}
	}
	if err := s.revokeCredential(ctx, conn); err != nil {
		return nil, err
	}
	return s.Records.Apply(ctx, s.resource(Connections), query.ID(id), resource.Change{
		Set: store.Doc{"state": StateDisconnected, "stateReason": "disconnected through the API"}})
}

func (s *Service) revokeCredential(ctx context.Context, conn store.Doc) error {
	id := str(conn["credential"])
	creds := s.Records.Registry.Get("config", credentials.Collection)
	if id == "" || creds == nil {
		return nil
	}
	_, err := s.Records.Apply(ctx, creds, query.ID(id), resource.Change{Set: store.Doc{"_status": credentials.StatusRevoked}})
	if resource.KindOf(err) == resource.KindNotFound {
		return nil
	}
	return err
}
