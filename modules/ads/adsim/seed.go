package adsim

import (
	"fmt"
	"time"

	"platform/modules/ads/adsapi"
)

// Shape is the size of a seeded account.
type Shape struct {
	Campaigns, AdGroupsPer, KeywordsPer, Days int
}

// Rows is how many metric rows the shape has over its days.
func (sh Shape) Rows() int {
	ags := sh.Campaigns * sh.AdGroupsPer
	return (sh.Campaigns + ags + ags*sh.KeywordsPer) * sh.Days
}

// Seed fills the account cid with the shape's entities and daily metrics
// for the days up to today (made-up but consistent numbers).
func (s *Sim) Seed(cid string, sh Shape) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.acct(cid)
	for c := range sh.Campaigns {
		camp := s.put(cid, adsapi.Entity{Kind: adsapi.KindCampaign, Name: fmt.Sprintf("campaign %d", c+1), Status: "ENABLED", ChannelType: "SEARCH", BudgetMicros: 10e6})
		s.seedDays(a, adsapi.MetricRow{Level: adsapi.LevelCampaign, EntityID: camp.ID, CampaignID: camp.ID}, sh.Days, 1000)
		for g := range sh.AdGroupsPer {
			ag := s.put(cid, adsapi.Entity{Kind: adsapi.KindAdGroup, CampaignID: camp.ID, Name: fmt.Sprintf("group %d", g+1), Status: "ENABLED", CpcBidMicros: 5e5})
			s.seedDays(a, adsapi.MetricRow{Level: adsapi.LevelAdGroup, EntityID: ag.ID, CampaignID: camp.ID, AdGroupID: ag.ID}, sh.Days, 300)
			for k := range sh.KeywordsPer {
				kw := s.put(cid, adsapi.Entity{Kind: adsapi.KindKeyword, AdGroupID: ag.ID, Name: fmt.Sprintf("keyword %d-%d-%d", c+1, g+1, k+1), MatchType: "BROAD", Status: "ENABLED"})
				s.seedDays(a, adsapi.MetricRow{Level: adsapi.LevelKeyword, EntityID: kw.ID, CampaignID: camp.ID, AdGroupID: ag.ID}, sh.Days, 50)
			}
		}
	}
}

func (s *Sim) seedDays(a *account, m adsapi.MetricRow, days int, base int64) {
	today := time.Now().UTC()
	for d := range days {
		m.Date = today.AddDate(0, 0, -d).Format(time.DateOnly)
		m.Impressions = base + int64(d)
		m.Clicks = m.Impressions / 20
		m.Conversions = float64(m.Clicks) / 4
		m.CostMicros = m.Clicks * 350000
		a.metrics[m.Level+"/"+m.EntityID+"/"+m.Date] = m
	}
}
