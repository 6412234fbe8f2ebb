package adsapi

import (
	"fmt"
	"strconv"
	"time"
)

// FromRow reads the entity of kind from a result row.
func FromRow(kind, cid string, r Row) (Entity, error) {
	switch {
	case kind == KindCampaign && r.Campaign != nil:
		return fromCampaign(r.Campaign)
	case kind == KindAdGroup && r.AdGroup != nil:
		return fromAdGroup(r.AdGroup)
	case kind == KindKeyword && r.AdGroupCriterion != nil:
		return fromCriterion(r.AdGroupCriterion)
	}
	return Entity{}, fmt.Errorf("ads: a result row without the %s it was asked for", kind)
}

func modified(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return ParseTime(s)
}

func fromCampaign(w *WireCampaign) (Entity, error) {
	t, err := modified(w.LastModifiedTime)
	return Entity{Kind: KindCampaign, ResourceName: w.ResourceName, ID: strconv.FormatInt(w.ID, 10), Name: w.Name, Status: w.Status,
		ChannelType: w.AdvertisingChannelType, StartDate: w.StartDate, EndDate: w.EndDate, BudgetMicros: w.BudgetAmountMicros, LastModified: t}, err
}

func fromAdGroup(w *WireAdGroup) (Entity, error) {
	t, err := modified(w.LastModifiedTime)
	return Entity{Kind: KindAdGroup, ResourceName: w.ResourceName, ID: strconv.FormatInt(w.ID, 10), CampaignID: LastID(w.Campaign),
		Name: w.Name, Status: w.Status, CpcBidMicros: w.CpcBidMicros, LastModified: t}, err
}

func fromCriterion(w *WireCriterion) (Entity, error) {
	t, err := modified(w.LastModifiedTime)
	e := Entity{Kind: KindKeyword, ResourceName: w.ResourceName, ID: strconv.FormatInt(w.CriterionID, 10), AdGroupID: LastID(w.AdGroup),
		Status: w.Status, CpcBidMicros: w.CpcBidMicros, LastModified: t}
	if w.Keyword != nil {
		e.Name, e.MatchType = w.Keyword.Text, w.Keyword.MatchType
	}
	return e, err
}

// ToWireCampaign is a campaign's wire form.
func ToWireCampaign(e Entity) *WireCampaign {
	id, _ := strconv.ParseInt(e.ID, 10, 64)
	return &WireCampaign{ResourceName: e.ResourceName, ID: id, Name: e.Name, Status: e.Status, AdvertisingChannelType: e.ChannelType,
		StartDate: e.StartDate, EndDate: e.EndDate, BudgetAmountMicros: e.BudgetMicros, LastModifiedTime: wireTime(e.LastModified)}
}

// ToWireAdGroup is an ad group's wire form.
func ToWireAdGroup(cid string, e Entity) *WireAdGroup {
	id, _ := strconv.ParseInt(e.ID, 10, 64)
	return &WireAdGroup{ResourceName: e.ResourceName, ID: id, Campaign: CampaignResource(cid, e.CampaignID), Name: e.Name, Status: e.Status,
		CpcBidMicros: e.CpcBidMicros, LastModifiedTime: wireTime(e.LastModified)}
}

// ToWireCriterion is a keyword's wire form.
func ToWireCriterion(cid string, e Entity) *WireCriterion {
	id, _ := strconv.ParseInt(e.ID, 10, 64)
	return &WireCriterion{ResourceName: e.ResourceName, CriterionID: id, AdGroup: AdGroupResource(cid, e.AdGroupID), Status: e.Status,
		Keyword: &WireKeyword{Text: e.Name, MatchType: e.MatchType}, CpcBidMicros: e.CpcBidMicros, LastModifiedTime: wireTime(e.LastModified)}
}

func wireTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return FormatTime(t)
}

// MetricFromRow reads a metric row of level.
func MetricFromRow(level string, r Row) (MetricRow, error) {
	if r.Metrics == nil || r.Segments == nil || r.Campaign == nil {
		return MetricRow{}, fmt.Errorf("ads: a %s metric row without metrics, date or campaign", level)
	}
	m := MetricRow{Level: level, Date: r.Segments.Date, CampaignID: strconv.FormatInt(r.Campaign.ID, 10),
		Impressions: r.Metrics.Impressions, Clicks: r.Metrics.Clicks, Conversions: r.Metrics.Conversions, CostMicros: r.Metrics.CostMicros}
	if _, err := time.Parse(time.DateOnly, m.Date); err != nil {
		return m, fmt.Errorf("ads: a metric row with the date %q", r.Segments.Date)
	}
	m.EntityID = m.CampaignID
	if level != LevelCampaign {
		if r.AdGroup == nil {
			return m, fmt.Errorf("ads: a %s metric row without its ad group", level)
		}
		m.AdGroupID = strconv.FormatInt(r.AdGroup.ID, 10)
		m.EntityID = m.AdGroupID
	}
	if level == LevelKeyword {
		if r.AdGroupCriterion == nil {
			return m, fmt.Errorf("ads: a keyword metric row without its criterion")
		}
		m.EntityID = strconv.FormatInt(r.AdGroupCriterion.CriterionID, 10)
	}
	return m, nil
}
