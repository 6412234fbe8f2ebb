package oauth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ory/fosite"

	"platform/kernel/groupcommit"
	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/identity"
)

// Global collections of the token service (token lookups know no customer).
const (
	CodesCollection   = "oauthcodes"   // _id: code signature
	PKCECollection    = "oauthpkce"    // _id: code signature
	AccessCollection  = "oauthaccess"  // _id: access token jti
	RefreshCollection = "oauthrefresh" // _id: refresh token signature
	// GrantsCollection marks revoked token families (_id: request id).
	GrantsCollection = "oauthgrants"
)

// Storage is fosite's storage over the store port. Every step that must be
// atomic across replicas is one conditional update (compare-and-set).
type Storage struct {
	Store    store.Store
	Identity *identity.Service
	Revoked  *RevocationList // told about revocations so this replica sees them at once

	accessOnce sync.Once
	access     *groupcommit.Inserter // access-token records, group-committed
}

var (
	errCodeRace    = errors.New("authorization code redeemed twice at the same time")
	errRefreshRace = errors.New("refresh token rotated twice at the same time")
)

func (st *Storage) coll(name string) store.Collection { return st.Store.Global(name) }

// EnsureIndexes creates the indexes revocation needs: by family, and by
// client (a deleted app's tokens).
func (st *Storage) EnsureIndexes(ctx context.Context) error {
	idx := []store.Index{
		{Name: "by_requestId", Keys: []store.SortField{{Field: "requestId"}}},
		{Name: "by_clientId", Keys: []store.SortField{{Field: "clientId"}}},
	}
	for _, c := range []string{AccessCollection, RefreshCollection} {
		if err := st.Store.EnsureIndexes(ctx, c, false, idx); err != nil {
			return err
		}
	}
	return nil
}

// GetClient implements fosite.ClientManager.
func (st *Storage) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	if id == "" {
		return nil, fosite.ErrNotFound
	}
	app, err := st.Identity.AppByClientID(ctx, id)
	if err != nil {
		return nil, notFound(err)
	}
	return client{app: app}, nil
}

// ClientAssertionJWTValid implements fosite.ClientManager; JWT client
// assertions are not offered (apps are never OpenID Connect clients).
func (st *Storage) ClientAssertionJWTValid(context.Context, string) error { return nil }

// SetClientAssertionJWT implements fosite.ClientManager (unused, see above).
func (st *Storage) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }

// CreateAuthorizeCodeSession stores a new, active code.
func (st *Storage) CreateAuthorizeCodeSession(ctx context.Context, sig string, r fosite.Requester) error {
	d := merge(store.Doc{"_id": sig, "active": true, "expiresAt": r.GetSession().GetExpiresAt(fosite.AuthorizeCode)}, requestDoc(r))
	return st.coll(CodesCollection).Insert(ctx, d)
}

// GetAuthorizeCodeSession returns the code's request; a used code returns
// it with ErrInvalidatedAuthorizeCode, so fosite revokes its family.
func (st *Storage) GetAuthorizeCodeSession(ctx context.Context, sig string, into fosite.Session) (fosite.Requester, error) {
	r, active, err := st.session(ctx, CodesCollection, sig, into)
	if err != nil {
		return nil, err
	}
	if !active {
		notesOf(ctx).reused("code", r)
		return r, fosite.ErrInvalidatedAuthorizeCode
	}
	return r, nil
}

// InvalidateAuthorizeCodeSession marks the code used with compare-and-set:
// of two parallel redemptions only one passes; the other revokes the
// family (RFC 6749 §4.1.2) and fails.
func (st *Storage) InvalidateAuthorizeCodeSession(ctx context.Context, sig string) error {
	_, err := st.coll(CodesCollection).Update(ctx, query.AllOf(query.ID(sig), query.Eq("active", true)),
		store.Update{Set: store.Doc{"active": false, "usedAt": time.Now().UTC()}})
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	d, gerr := st.coll(CodesCollection).Get(ctx, sig)
	if gerr != nil {
		return gerr
	}
	family, _ := d["requestId"].(string)
	notesOf(ctx).reusedFamily("code", family, str(d["customer"]), str(d["clientId"]))
	if rerr := st.RevokeFamily(ctx, family); rerr != nil {
		return rerr
	}
	return errCodeRace
}

// CreatePKCERequestSession implements pkce.PKCERequestStorage.
func (st *Storage) CreatePKCERequestSession(ctx context.Context, sig string, r fosite.Requester) error {
	return st.coll(PKCECollection).Insert(ctx, merge(store.Doc{"_id": sig, "expiresAt": r.GetSession().GetExpiresAt(fosite.AuthorizeCode)}, requestDoc(r)))
}

// GetPKCERequestSession implements pkce.PKCERequestStorage.
func (st *Storage) GetPKCERequestSession(ctx context.Context, sig string, into fosite.Session) (fosite.Requester, error) {
	d, err := st.coll(PKCECollection).Get(ctx, sig)
	if err != nil {
		return nil, notFound(err)
	}
	return st.requestOf(ctx, d, into)
}

// DeletePKCERequestSession implements pkce.PKCERequestStorage. fosite
// deletes before comparing, so a wrong verifier burns the code.
func (st *Storage) DeletePKCERequestSession(ctx context.Context, sig string) error {
	_, err := st.coll(PKCECollection).Delete(ctx, query.ID(sig))
	return err
}

// CreateAccessTokenSession records an issued access token by its jti.
func (st *Storage) CreateAccessTokenSession(ctx context.Context, jti string, r fosite.Requester) error {
	d := merge(store.Doc{"_id": jti, "revoked": false, "expiresAt": r.GetSession().GetExpiresAt(fosite.AccessToken)}, requestDoc(r))
	st.accessOnce.Do(func() {
		st.access = &groupcommit.Inserter{InsertMany: func(ctx context.Context, _ string, docs []store.Doc) error {
			return st.coll(AccessCollection).InsertMany(ctx, docs)
		}}
	})
	return st.access.Insert(ctx, "", d)
}

// GetAccessTokenSession returns an access token's request (revocation).
func (st *Storage) GetAccessTokenSession(ctx context.Context, jti string, into fosite.Session) (fosite.Requester, error) {
	d, err := st.coll(AccessCollection).Get(ctx, jti)
	if err != nil {
		return nil, notFound(err)
	}
	r, err := st.requestOf(ctx, d, into)
	if err != nil {
		return nil, err
	}
	if revoked, _ := d["revoked"].(bool); revoked {
		return r, fosite.ErrInactiveToken
	}
	return r, nil
}

// DeleteAccessTokenSession revokes rather than deletes: the revocation list
// answers from these records, and a missing record means "not revoked".
func (st *Storage) DeleteAccessTokenSession(ctx context.Context, jti string) error {
	_, err := st.coll(AccessCollection).Update(ctx, query.ID(jti), store.Update{Set: store.Doc{"revoked": true}})
	st.Revoked.forget(jti)
	return ignoreNotFound(err)
}

// CreateRefreshTokenSession stores a new, active refresh token.
func (st *Storage) CreateRefreshTokenSession(ctx context.Context, sig, accessJTI string, r fosite.Requester) error {
	d := merge(store.Doc{"_id": sig, "active": true, "accessJti": accessJTI, "expiresAt": r.GetSession().GetExpiresAt(fosite.RefreshToken)}, requestDoc(r))
	return st.coll(RefreshCollection).Insert(ctx, d)
}

// GetRefreshTokenSession returns the refresh token's request; a rotated or
// revoked one returns it with ErrInactiveToken, so fosite treats a refresh
// with it as reuse and revokes the family.
func (st *Storage) GetRefreshTokenSession(ctx context.Context, sig string, into fosite.Session) (fosite.Requester, error) {
	r, active, err := st.session(ctx, RefreshCollection, sig, into)
	if err != nil {
		return nil, err
	}
	if !active {
		return r, fosite.ErrInactiveToken
	}
	return r, nil
}

// DeleteRefreshTokenSession deactivates (kept for reuse detection).
func (st *Storage) DeleteRefreshTokenSession(ctx context.Context, sig string) error {
	_, err := st.coll(RefreshCollection).Update(ctx, query.ID(sig), store.Update{Set: store.Doc{"active": false}})
	return ignoreNotFound(err)
}

// RotateRefreshToken deactivates the used refresh token with
// compare-and-set; losing the race is reuse: the family is revoked.
func (st *Storage) RotateRefreshToken(ctx context.Context, family, sig string) error {
	_, err := st.coll(RefreshCollection).Update(ctx, query.AllOf(query.ID(sig), query.Eq("active", true)),
		store.Update{Set: store.Doc{"active": false, "rotatedAt": time.Now().UTC()}})
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if rerr := st.RevokeFamily(ctx, family); rerr != nil {
		return rerr
	}
	return errRefreshRace
}

// RevokeRefreshToken deactivates every refresh token of a family.
func (st *Storage) RevokeRefreshToken(ctx context.Context, family string) error {
	ctx, cancel := revocationContext(ctx)
	defer cancel()
	if err := st.markRevoked(ctx, family); err != nil {
		return err
	}
	_, err := st.coll(RefreshCollection).UpdateMany(ctx, query.Eq("requestId", family), store.Update{Set: store.Doc{"active": false}})
	return err
}

// RevokeAccessToken revokes every access token of a family; the API sees
// it at its next request (see RevocationList).
func (st *Storage) RevokeAccessToken(ctx context.Context, family string) error {
	ctx, cancel := revocationContext(ctx)
	defer cancel()
	if err := st.markRevoked(ctx, family); err != nil {
		return err
	}
	docs, err := st.coll(AccessCollection).Find(ctx, store.FindOptions{Filter: query.Eq("requestId", family), Fields: []string{"_id"}})
	if err != nil {
		return err
	}
	if _, err := st.coll(AccessCollection).UpdateMany(ctx, query.Eq("requestId", family), store.Update{Set: store.Doc{"revoked": true}}); err != nil {
		return err
	}
	for _, d := range docs {
		st.Revoked.forget(str(d["_id"]))
	}
	notesOf(ctx).revokedFamily(family)
	return nil
}

// RevokeClient revokes every access and refresh token of a client (an app
// being deleted): the API refuses its access tokens at its next request.
// The client must be unregistered first, so that a token issued while this
// runs is caught by the check after issuing (Service.checkGrant).
func (st *Storage) RevokeClient(ctx context.Context, clientID string) error {
	ctx, cancel := revocationContext(ctx)
	defer cancel()
	live := query.AllOf(query.Eq("clientId", clientID), query.Eq("revoked", false))
	docs, err := st.coll(AccessCollection).Find(ctx, store.FindOptions{Filter: live, Fields: []string{"_id"}})
	if err != nil {
		return fmt.Errorf("find the access tokens of %s: %w", clientID, err)
	}
	if _, err := st.coll(AccessCollection).UpdateMany(ctx, live, store.Update{Set: store.Doc{"revoked": true}}); err != nil {
		return fmt.Errorf("revoke the access tokens of %s: %w", clientID, err)
	}
	for _, d := range docs {
		st.Revoked.forget(str(d["_id"]))
	}
	active := query.AllOf(query.Eq("clientId", clientID), query.Eq("active", true))
	if _, err := st.coll(RefreshCollection).UpdateMany(ctx, active, store.Update{Set: store.Doc{"active": false}}); err != nil {
		return fmt.Errorf("revoke the refresh tokens of %s: %w", clientID, err)
	}
	return nil
}

// revocationTimeout bounds one revocation step (see revocationContext).
const revocationTimeout = 30 * time.Second

// revocationContext is ctx's values without its cancellation, bounded: a
// revocation takes several writes, and one that stopped half-way (its
// client gone: a reused refresh token's sender can disconnect at once)
// would mark the family revoked and leave its tokens working.
func revocationContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), revocationTimeout)
}

// RevokeFamily revokes every token issued from one grant.
func (st *Storage) RevokeFamily(ctx context.Context, family string) error {
	if err := st.RevokeRefreshToken(ctx, family); err != nil {
		return err
	}
	return st.RevokeAccessToken(ctx, family)
}

// markRevoked records the family as revoked before its tokens are: a token
// written concurrently by a winning redemption is caught by familyRevoked.
func (st *Storage) markRevoked(ctx context.Context, family string) error {
	if family == "" {
		return nil
	}
	_, err := st.coll(GrantsCollection).Upsert(ctx, family, store.Update{Set: store.Doc{"revokedAt": time.Now().UTC()}})
	return err
}

// familyRevoked reports whether a family was revoked (checked after
// issuing, closing the race between a redemption and a reuse).
func (st *Storage) familyRevoked(ctx context.Context, family string) (bool, error) {
	_, err := st.coll(GrantsCollection).Get(ctx, family)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func ignoreNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

func str(v any) string { s, _ := v.(string); return s }

// session loads a stored code or refresh token with its request and
// whether it is still active.
func (st *Storage) session(ctx context.Context, collection, sig string, into fosite.Session) (fosite.Requester, bool, error) {
	d, err := st.coll(collection).Get(ctx, sig)
	if err != nil {
		return nil, false, notFound(err)
	}
	r, err := st.requestOf(ctx, d, into)
	if err != nil {
		return nil, false, err
	}
	active, _ := d["active"].(bool)
	return r, active, nil
}
