package identity

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/store"
)

// User is a person who signs in for a customer. Rights are granted
// directly or, usually, through roles.
type User struct {
	ID     string
	Email  string
	Name   string
	Rights []string // direct rights
	Roles  []string // role names
}

// ErrBadCredentials is the one answer for an unknown e-mail and a wrong
// password, so sign-in does not reveal which addresses exist.
var ErrBadCredentials = errors.New("identity: wrong e-mail or password")

// EnsureUser creates the user if the e-mail is new for the customer of ctx;
// it reports whether it was created.
func (s *Service) EnsureUser(ctx context.Context, email, name, password string, rights []string) (*User, bool, error) {
	if u, err := s.UserByEmail(ctx, email); err == nil {
		return u, false, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, false, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return nil, false, err
	}
	doc := store.Doc{"_id": store.NewID(), "email": strings.ToLower(email), "name": name, "passwordHash": hash,
		"rights": store.List(rights), "roles": []any{}, "createdAt": time.Now().UTC()}
	if err := s.Store.Collection(Users).Insert(ctx, doc); err != nil {
		return nil, false, err
	}
	return userOf(doc), true, nil
}

// SetRoles replaces the roles of a user of the customer of ctx.
func (s *Service) SetRoles(ctx context.Context, userID string, roles []string) error {
	_, err := s.Store.Collection(Users).Update(ctx, query.ID(userID), store.Update{Set: store.Doc{"roles": store.List(roles)}})
	return err
}

// UserByEmail finds a user of the customer of ctx.
func (s *Service) UserByEmail(ctx context.Context, email string) (*User, error) {
	d, err := s.userDocByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	return userOf(d), nil
}

// UserByID finds a user of the customer of ctx.
func (s *Service) UserByID(ctx context.Context, id string) (*User, error) {
	d, err := s.Store.Collection(Users).Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return userOf(d), nil
}

func (s *Service) userDocByEmail(ctx context.Context, email string) (store.Doc, error) {
	docs, err := s.Store.Collection(Users).Find(ctx, store.FindOptions{Filter: query.Eq("email", strings.ToLower(strings.TrimSpace(email))), Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, store.ErrNotFound
	}
	return docs[0], nil
}

// dummyHash is checked when the e-mail is unknown, so both failures cost
// one argon2id evaluation and take the same time.
var dummyHash = sync.OnceValue(func() string {
	h, _ := HashPassword(RandomSecret(16))
	return h
})

// Authenticate checks an e-mail and password of the customer of ctx.
func (s *Service) Authenticate(ctx context.Context, email, password string) (*User, error) {
	d, err := s.userDocByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		_, _ = CheckPassword(dummyHash(), password)
		return nil, ErrBadCredentials
	} else if err != nil {
		return nil, err
	}
	hash, _ := d["passwordHash"].(string)
	ok, err := CheckPassword(hash, password)
	if err != nil || !ok {
		return nil, ErrBadCredentials
	}
	return userOf(d), nil
}

// EnsureRole creates or updates a role of the customer of ctx.
func (s *Service) EnsureRole(ctx context.Context, name string, rights []string) error {
	c := s.Store.Collection(Roles)
	docs, err := c.Find(ctx, store.FindOptions{Filter: query.Eq("name", name), Limit: 1})
	if err != nil {
		return err
	}
	if len(docs) > 0 {
		_, err = c.Update(ctx, query.ID(docs[0]["_id"].(string)), store.Update{Set: store.Doc{"rights": store.List(rights)}})
		return err
	}
	err = c.Insert(ctx, store.Doc{"_id": store.NewID(), "name": name, "rights": store.List(rights), "createdAt": time.Now().UTC()})
	if store.IsDuplicate(err) {
		return s.EnsureRole(ctx, name, rights)
	}
	return err
}

// EffectiveRights are the user's direct rights plus those of its roles
// (wildcards kept; they are expanded where a grant is frozen). The
// admin-only rights (auth.DeclareAdminOnly) come from the admin role
// alone: a user holding it gets each of them by exact name, and the same
// names listed directly or in another role are dropped.
func (s *Service) EffectiveRights(ctx context.Context, u *User) ([]string, error) {
	out := withoutAdminOnly(u.Rights)
	if len(u.Roles) == 0 {
		return out, nil
	}
	names := make([]any, len(u.Roles))
	for i, r := range u.Roles {
		names[i] = r
	}
	roles, err := s.Store.Collection(Roles).Find(ctx, store.FindOptions{Filter: query.Field{Path: "name", Conds: []query.Cond{query.In{Values: names}}}})
	if err != nil {
		return nil, err
	}
	for _, r := range roles {
		out = append(out, withoutAdminOnly(store.Strings(r["rights"]))...)
		if r["name"] == auth.AdminRole {
			out = append(out, auth.AdminOnlyRights()...)
		}
	}
	return out, nil
}

// withoutAdminOnly leaves out the admin-only rights named exactly.
func withoutAdminOnly(rights []string) []string {
	out := make([]string, 0, len(rights))
	for _, r := range rights {
		if !auth.IsAdminOnly(r) {
			out = append(out, r)
		}
	}
	return out
}

func userOf(d store.Doc) *User {
	u := &User{}
	u.ID, _ = d["_id"].(string)
	u.Email, _ = d["email"].(string)
	u.Name, _ = d["name"].(string)
	u.Rights = store.Strings(d["rights"])
	u.Roles = store.Strings(d["roles"])
	return u
}
