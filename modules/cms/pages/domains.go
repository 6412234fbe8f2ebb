package pages

import (
	"context"
	"errors"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// ErrDomainTaken: another page, of this or another customer, holds the
// custom domain.
var ErrDomainTaken = errors.New("the domain is another page's custom domain")

// Domain is a custom domain's claim: the page it serves.
type Domain struct {
	Customer, Page string
}

// ClaimDomain makes host the custom domain of the page of the customer
// in ctx. A claim whose page no longer holds the domain (a write that
// failed after claiming, a page that changed its domain while a release
// failed) is taken over, so a lost release never locks a domain.
func ClaimDomain(ctx context.Context, s store.Store, host, page string) error {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	claim := store.Doc{"_id": host, "customer": customer, "page": page}
	err = s.Global(Domains).Insert(ctx, claim)
	if !store.IsDuplicate(err) {
		return err
	}
	held, err := LookupDomain(ctx, s, host)
	if err != nil || held == (Domain{Customer: customer, Page: page}) {
		return err
	}
	return takeOver(ctx, s, host, held, claim)
}

// takeOver replaces a stale claim; a claim still held is ErrDomainTaken.
func takeOver(ctx context.Context, s store.Store, host string, held Domain, claim store.Doc) error {
	holds, err := pageHolds(ctx, s, held, host)
	if err != nil {
		return err
	}
	if holds {
		return ErrDomainTaken
	}
	where := query.AllOf(query.ID(host), query.Eq("customer", held.Customer), query.Eq("page", held.Page))
	_, err = s.Global(Domains).Update(ctx, where, store.Update{Set: store.Doc{"customer": claim["customer"], "page": claim["page"]}})
	if errors.Is(err, store.ErrNotFound) {
		return ErrDomainTaken // another claim won the race
	}
	return err
}

// pageHolds reports whether the claim's page still has host as its
// custom domain.
func pageHolds(ctx context.Context, s store.Store, d Domain, host string) (bool, error) {
	doc, err := s.Collection(Pages).Get(tenant.WithCustomer(ctx, d.Customer), d.Page, "customDomain")
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil && doc["customDomain"] == host, err
}

// ReleaseDomain drops the page's claim of host, if it has it.
func ReleaseDomain(ctx context.Context, s store.Store, host, page string) error {
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	_, err = s.Global(Domains).Delete(ctx, query.AllOf(query.ID(host), query.Eq("customer", customer), query.Eq("page", page)))
	return err
}

// LookupDomain is the claim of host; store.ErrNotFound when none.
func LookupDomain(ctx context.Context, s store.Store, host string) (Domain, error) {
	doc, err := s.Global(Domains).Get(ctx, host)
	if err != nil {
		return Domain{}, err
	}
	return Domain{Customer: str(doc["customer"]), Page: str(doc["page"])}, nil
}
