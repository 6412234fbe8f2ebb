// Package adsapi is the advertising platform as the ads module sees it:
// a small Provider interface (connect by OAuth, read entities changed
// since a time, read daily metrics, push a change) and its HTTP
// implementation of the platform's REST API at version 23, modelled on
// the Google Ads API REST interface (googleAds:search with a query and
// page tokens, campaigns:mutate, adGroups:mutate, the OAuth 2.0 token
// endpoint, the developer-token header). docs/ads.md describes the
// protocol; package adsim serves it locally.
package adsapi

import (
	"context"
	"errors"
	"time"
)

// Version is the external API version the client speaks.
const Version = "v23"

// Kinds of entity.
const (
	KindCampaign = "campaign"
	KindAdGroup  = "adGroup"
	KindKeyword  = "keyword"
)

// Metric levels: the entity a daily metric row belongs to.
const (
	LevelCampaign = "campaign"
	LevelAdGroup  = "adgroup"
	LevelKeyword  = "keyword"
)

// Errors a caller tells apart.
var (
	// ErrRevoked: the refresh token is revoked or expired (invalid_grant);
	// nothing but a new authorization helps.
	ErrRevoked = errors.New("ads: the platform refused the refresh token (invalid_grant): the account must be connected again")
	// ErrNotFound: the entity is not (or no longer) at the platform.
	ErrNotFound = errors.New("ads: the entity does not exist at the platform")
)

// Account is one connected advertising account: the platform's customer
// id (digits), the manager account it is reached through (optional) and
// the refresh token the connection holds.
type Account struct {
	CustomerID      string
	LoginCustomerID string
	RefreshToken    string
}

// Entity is a campaign, ad group or keyword as the platform has it.
// Money is in micros of the account's currency (1,000,000 = one unit).
type Entity struct {
	Kind         string
	ResourceName string // customers/{cid}/campaigns/{id}
	ID           string
	CampaignID   string // ad groups and keywords
	AdGroupID    string // keywords
	Name         string // keywords: the text
	Status       string // ENABLED, PAUSED, REMOVED
	ChannelType  string // campaigns: SEARCH, DISPLAY, ...
	BudgetMicros int64  // campaigns: the daily budget
	CpcBidMicros int64  // ad groups and keywords
	MatchType    string // keywords: EXACT, PHRASE, BROAD
	StartDate    string // campaigns, YYYY-MM-DD
	EndDate      string
	// LastModified is the platform's time of the entity's last change.
	LastModified time.Time
}

// MetricRow is one day of one entity's performance.
type MetricRow struct {
	Level       string
	EntityID    string // the platform's id of the campaign, ad group or keyword
	CampaignID  string
	AdGroupID   string
	Date        string // YYYY-MM-DD
	Impressions int64
	Clicks      int64
	Conversions float64
	CostMicros  int64
}

// EntityPage is one page of entities; Next is empty on the last.
type EntityPage struct {
	Entities []Entity
	Next     string
}

// MetricPage is one page of metric rows; Next is empty on the last.
type MetricPage struct {
	Rows []MetricRow
	Next string
}

// Change is a create (ResourceName empty) or an update of a campaign or
// an ad group; Fields names what an update sets (its update mask).
type Change struct {
	Entity Entity
	Fields []string
}

// Provider is the advertising platform.
type Provider interface {
	// AuthCodeURL is where the user grants access: state binds the answer
	// to the connection, verifier is the PKCE secret (S256 challenge).
	AuthCodeURL(state, verifier, redirectURL string) string
	// Exchange trades an authorization code for a refresh token.
	Exchange(ctx context.Context, code, verifier, redirectURL string) (refreshToken string, err error)
	// Entities lists the entities of kind changed at or after since (all when
	// since is zero), a page at a time.
	Entities(ctx context.Context, a Account, kind string, since time.Time, pageToken string) (EntityPage, error)
	// Entity reads one entity by its resource name.
	Entity(ctx context.Context, a Account, kind, resourceName string) (Entity, error)
	// Metrics lists the daily rows of level from from to to (dates, both
	// included), a page at a time.
	Metrics(ctx context.Context, a Account, level, from, to, pageToken string) (MetricPage, error)
	// Performance lists each keyword's totals from from to to (rows
	// without a date), a page at a time.
	Performance(ctx context.Context, a Account, from, to, pageToken string) (MetricPage, error)
	// Mutate pushes a change and answers the entity as the platform keeps it.
	Mutate(ctx context.Context, a Account, c Change) (Entity, error)
}
