package oauth

import (
	"context"
	"sort"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/oauth/families"
)

var _ families.Source = (*Service)(nil)

// MaxFamilyScan bounds how many of a customer's newest access and refresh
// token records one list reads (each kind): older families than those are
// left out of the list, though they can still be read and revoked by id.
const MaxFamilyScan = 5000

// familyFields are what a family is built from: never _id (a refresh
// token's is its signature), never the session.
var familyFields = []string{"requestId", "clientId", "user", "grantedScopes", "requestedAt", "expiresAt", "revoked", "active"}

// Families implements families.Source: the customer's families, newest
// grant first.
func (s *Service) Families(ctx context.Context, customer string, f families.Filter) ([]families.Family, error) {
	where := []query.Expr{query.Eq("customer", customer)}
	if f.ClientID != "" {
		where = append(where, query.Eq("clientId", f.ClientID))
	}
	if f.User != "" {
		where = append(where, query.Eq("user", f.User))
	}
	out, err := s.familiesWhere(ctx, query.AllOf(where...), MaxFamilyScan)
	if err != nil || f.Active == nil {
		return out, err
	}
	kept := out[:0]
	for _, fam := range out {
		if fam.Active == *f.Active {
			kept = append(kept, fam)
		}
	}
	return kept, nil
}

// Family implements families.Source.
func (s *Service) Family(ctx context.Context, customer, id string) (*families.Family, error) {
	if id == "" {
		return nil, families.ErrNotFound
	}
	out, err := s.familiesWhere(ctx, query.AllOf(query.Eq("customer", customer), query.Eq("requestId", id)), 0)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, families.ErrNotFound
	}
	return &out[0], nil
}

// RevokeFamily implements families.Source through the revocation path of
// /oauth/revoke and of refresh-token reuse.
func (s *Service) RevokeFamily(ctx context.Context, customer, id string) (*families.Family, error) {
	if _, err := s.Family(ctx, customer, id); err != nil {
		return nil, err
	}
	if err := s.storage.RevokeFamily(ctx, id); err != nil {
		return nil, err
	}
	return s.Family(ctx, customer, id)
}

func (s *Service) familiesWhere(ctx context.Context, where query.Expr, limit int64) ([]families.Family, error) {
	byID := map[string]*families.Family{}
	for _, coll := range []string{AccessCollection, RefreshCollection} {
		docs, err := s.storage.coll(coll).Find(ctx, store.FindOptions{Filter: where, Fields: familyFields,
			Sort: []store.SortField{{Field: "_id", Desc: true}}, Limit: limit})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			addToken(byID, d, coll == RefreshCollection)
		}
	}
	if err := s.markRevokedFamilies(ctx, byID); err != nil {
		return nil, err
	}
	out := make([]families.Family, 0, len(byID))
	for _, f := range byID {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].IssuedAt.Equal(out[j].IssuedAt) {
			return out[i].IssuedAt.After(out[j].IssuedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// addToken folds one token record into its family.
func addToken(byID map[string]*families.Family, d store.Doc, refresh bool) {
	id := str(d["requestId"])
	f := byID[id]
	requested, _ := d["requestedAt"].(time.Time)
	if f == nil {
		f = &families.Family{ID: id, ClientID: str(d["clientId"]), User: str(d["user"]), Scopes: store.Strings(d["grantedScopes"]), IssuedAt: requested}
		byID[id] = f
	}
	exp, _ := d["expiresAt"].(time.Time)
	f.IssuedAt = earliest(f.IssuedAt, requested)
	f.LastIssuedAt = latest(f.LastIssuedAt, requested)
	f.ExpiresAt = latest(f.ExpiresAt, exp)
	live := exp.IsZero() || time.Now().Before(exp)
	if refresh {
		f.RefreshTokens++
		live = live && d["active"] == true
	} else {
		f.AccessTokens++
		live = live && d["revoked"] != true
	}
	f.Active = f.Active || live
}

// markRevokedFamilies sets RevokedAt (and clears Active) of the families
// the grants collection names revoked.
func (s *Service) markRevokedFamilies(ctx context.Context, byID map[string]*families.Family) error {
	ids := make([]any, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil
	}
	docs, err := s.storage.coll(GrantsCollection).Find(ctx, store.FindOptions{
		Filter: query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids}}}})
	if err != nil {
		return err
	}
	for _, d := range docs {
		if f, at := byID[str(d["_id"])], d["revokedAt"]; f != nil {
			if t, ok := at.(time.Time); ok {
				f.RevokedAt = &t
			}
			f.Active = false
		}
	}
	return nil
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
