package adsapi

import (
	"fmt"
	"strings"
	"time"
)

// The wire form of the API (JSON as the Google Ads REST interface writes
// it: int64 values as strings). Package adsim serves the same types.

// TimeLayout is how the API writes date-times (in UTC here).
const TimeLayout = "2006-01-02 15:04:05.000000"

// SearchRequest is the body of POST /v23/customers/{id}/googleAds:search.
type SearchRequest struct {
	Query     string `json:"query"`
	PageToken string `json:"pageToken,omitempty"`
}

// SearchResponse is its answer.
type SearchResponse struct {
	Results       []Row  `json:"results"`
	NextPageToken string `json:"nextPageToken,omitempty"`
	FieldMask     string `json:"fieldMask,omitempty"`
}

// Row is one result row: the resources the query selected.
type Row struct {
	Campaign         *WireCampaign  `json:"campaign,omitempty"`
	AdGroup          *WireAdGroup   `json:"adGroup,omitempty"`
	AdGroupCriterion *WireCriterion `json:"adGroupCriterion,omitempty"`
	Metrics          *WireMetrics   `json:"metrics,omitempty"`
	Segments         *WireSegments  `json:"segments,omitempty"`
}

// WireCampaign is a campaign; the budget is carried on it (the real API
// keeps it in a campaign_budget resource of its own).
type WireCampaign struct {
	ResourceName           string `json:"resourceName,omitempty"`
	ID                     int64  `json:"id,omitempty,string"`
	Name                   string `json:"name,omitempty"`
	Status                 string `json:"status,omitempty"`
	AdvertisingChannelType string `json:"advertisingChannelType,omitempty"`
	StartDate              string `json:"startDate,omitempty"`
	EndDate                string `json:"endDate,omitempty"`
	BudgetAmountMicros     int64  `json:"budgetAmountMicros,omitempty,string"`
	LastModifiedTime       string `json:"lastModifiedTime,omitempty"`
}

// WireAdGroup is an ad group; Campaign is the campaign's resource name.
type WireAdGroup struct {
	ResourceName     string `json:"resourceName,omitempty"`
	ID               int64  `json:"id,omitempty,string"`
	Campaign         string `json:"campaign,omitempty"`
	Name             string `json:"name,omitempty"`
	Status           string `json:"status,omitempty"`
	CpcBidMicros     int64  `json:"cpcBidMicros,omitempty,string"`
	LastModifiedTime string `json:"lastModifiedTime,omitempty"`
}

// WireCriterion is an ad group criterion of type keyword.
type WireCriterion struct {
	ResourceName     string       `json:"resourceName,omitempty"`
	CriterionID      int64        `json:"criterionId,omitempty,string"`
	AdGroup          string       `json:"adGroup,omitempty"`
	Status           string       `json:"status,omitempty"`
	Keyword          *WireKeyword `json:"keyword,omitempty"`
	CpcBidMicros     int64        `json:"cpcBidMicros,omitempty,string"`
	LastModifiedTime string       `json:"lastModifiedTime,omitempty"`
}

// WireKeyword is a criterion's keyword.
type WireKeyword struct {
	Text      string `json:"text"`
	MatchType string `json:"matchType"`
}

// WireMetrics are a row's metrics.
type WireMetrics struct {
	Impressions int64   `json:"impressions,string"`
	Clicks      int64   `json:"clicks,string"`
	Conversions float64 `json:"conversions"`
	CostMicros  int64   `json:"costMicros,string"`
}

// WireSegments segment a row (by day here).
type WireSegments struct {
	Date string `json:"date"`
}

// MutateRequest is the body of POST .../campaigns:mutate and .../adGroups:mutate.
type MutateRequest struct {
	Operations          []Operation `json:"operations"`
	ResponseContentType string      `json:"responseContentType,omitempty"`
}

// Operation is one create or update.
type Operation struct {
	Create     any    `json:"create,omitempty"`
	Update     any    `json:"update,omitempty"`
	UpdateMask string `json:"updateMask,omitempty"`
}

// MutateResponse answers a mutate.
type MutateResponse struct {
	Results []MutateResult `json:"results"`
}

// MutateResult is one operation's outcome.
type MutateResult struct {
	ResourceName string        `json:"resourceName"`
	Campaign     *WireCampaign `json:"campaign,omitempty"`
	AdGroup      *WireAdGroup  `json:"adGroup,omitempty"`
}

// ErrorBody is the API's error answer.
type ErrorBody struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

// CampaignResource names a campaign.
func CampaignResource(cid, id string) string { return "customers/" + cid + "/campaigns/" + id }

// AdGroupResource names an ad group.
func AdGroupResource(cid, id string) string { return "customers/" + cid + "/adGroups/" + id }

// CriterionResource names a keyword criterion.
func CriterionResource(cid, adGroupID, id string) string {
	return "customers/" + cid + "/adGroupCriteria/" + adGroupID + "~" + id
}

// LastID is the last segment of a resource name (the criterion's after ~).
func LastID(resourceName string) string {
	i := strings.LastIndexAny(resourceName, "/~")
	return resourceName[i+1:]
}

// FormatTime writes t as the API does.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads an API date-time (UTC).
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("ads: unreadable date-time %q", s)
	}
	return t, nil
}

// Queries, in the platform's query language.
var (
	entityFrom = map[string]string{KindCampaign: "campaign", KindAdGroup: "ad_group", KindKeyword: "ad_group_criterion"}
	metricFrom = map[string]string{LevelCampaign: "campaign", LevelAdGroup: "ad_group", LevelKeyword: "keyword_view"}
	selects    = map[string]string{
		"campaign":           "campaign.resource_name, campaign.id, campaign.name, campaign.status, campaign.advertising_channel_type, campaign.start_date, campaign.end_date, campaign.budget_amount_micros, campaign.last_modified_time",
		"ad_group":           "ad_group.resource_name, ad_group.id, ad_group.campaign, ad_group.name, ad_group.status, ad_group.cpc_bid_micros, ad_group.last_modified_time",
		"ad_group_criterion": "ad_group_criterion.resource_name, ad_group_criterion.criterion_id, ad_group_criterion.ad_group, ad_group_criterion.status, ad_group_criterion.keyword.text, ad_group_criterion.keyword.match_type, ad_group_criterion.cpc_bid_micros, ad_group_criterion.last_modified_time",
	}
	metricSelect = "segments.date, metrics.impressions, metrics.clicks, metrics.conversions, metrics.cost_micros"
)

// EntityQuery selects the entities of kind changed after since, or the
// one named resourceName.
func EntityQuery(kind string, since time.Time, resourceName string) string {
	from := entityFrom[kind]
	q := "SELECT " + selects[from] + " FROM " + from
	switch {
	case resourceName != "":
		q += " WHERE " + from + ".resource_name = '" + resourceName + "'"
	case !since.IsZero():
		q += " WHERE " + from + ".last_modified_time >= '" + FormatTime(since) + "'"
	}
	return q + " ORDER BY " + from + ".resource_name"
}

// MetricQuery selects the daily metrics of level between two dates.
func MetricQuery(level, from, to string) string {
	ids := map[string]string{LevelCampaign: "campaign.id", LevelAdGroup: "campaign.id, ad_group.id",
		LevelKeyword: "campaign.id, ad_group.id, ad_group_criterion.criterion_id"}[level]
	return "SELECT " + ids + ", " + metricSelect + " FROM " + metricFrom[level] +
		" WHERE segments.date BETWEEN '" + from + "' AND '" + to + "'"
}

// PerformanceQuery selects each keyword's totals between two dates: no
// segments.date, so the platform sums the days.
func PerformanceQuery(from, to string) string {
	return "SELECT campaign.id, ad_group.id, ad_group_criterion.criterion_id, metrics.impressions, metrics.clicks, metrics.conversions, metrics.cost_micros" +
		" FROM keyword_view WHERE segments.date BETWEEN '" + from + "' AND '" + to + "'"
}
