package adsync

import (
	"context"
	"fmt"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/ads/adsapi"
	"platform/workflows/contract"
)

// Begin plans a run: entities changed since the cursor (all on the first
// run), and metrics from a few days before the last synced day (the
// platform revises them) or MetricDays back, up to today. A connection
// that is not connected is skipped.
func (s *Service) Begin(ctx context.Context, in contract.AdsSyncBeginInput) (contract.AdsSyncPlan, error) {
	conn, err := s.connection(ctx, in.ConnectionID)
	if resource.KindOf(err) == resource.KindNotFound {
		return contract.AdsSyncPlan{Skip: true}, nil
	}
	if err != nil {
		return contract.AdsSyncPlan{}, err
	}
	if conn["state"] != StateConnected {
		return contract.AdsSyncPlan{Skip: true}, nil
	}
	now := s.now()
	plan := contract.AdsSyncPlan{SyncID: store.NewID(), To: now.Format(time.DateOnly), Started: now}
	plan.From = now.AddDate(0, 0, -s.MetricDays+1).Format(time.DateOnly)
	if cur, ok := conn["cursor"].(map[string]any); ok {
		plan.Since, _ = cur["entitiesSince"].(time.Time)
		if last, err := time.Parse(time.DateOnly, str(cur["metricsThrough"])); err == nil {
			if from := last.AddDate(0, 0, -s.RevisitDays).Format(time.DateOnly); from > plan.From {
				plan.From = from
			}
		}
	}
	_, err = s.Records.Apply(ctx, s.resource(Connections), query.ID(in.ConnectionID), resource.Change{Set: store.Doc{
		"lastSync": store.Doc{"status": "running", "syncId": plan.SyncID, "startedAt": now}}})
	return plan, err
}

// Page copies one page of one stage.
func (s *Service) Page(ctx context.Context, in contract.AdsSyncPageInput) (contract.AdsSyncPageResult, error) {
	conn, err := s.connection(ctx, in.ConnectionID)
	if err != nil {
		return contract.AdsSyncPageResult{}, err
	}
	a, err := s.account(ctx, conn)
	if err != nil {
		return contract.AdsSyncPageResult{}, err
	}
	switch in.Stage {
	case contract.AdsStageCampaigns:
		return s.entityPage(ctx, in, a, adsapi.KindCampaign)
	case contract.AdsStageAdGroups:
		return s.entityPage(ctx, in, a, adsapi.KindAdGroup)
	case contract.AdsStageKeywords:
		return s.entityPage(ctx, in, a, adsapi.KindKeyword)
	case contract.AdsStageCampaignDays:
		return s.metricPage(ctx, in, a, adsapi.LevelCampaign)
	case contract.AdsStageAdGroupDays:
		return s.metricPage(ctx, in, a, adsapi.LevelAdGroup)
	case contract.AdsStageKeywordDays:
		return s.metricPage(ctx, in, a, adsapi.LevelKeyword)
	case contract.AdsStageKeywordTotals:
		return s.performancePage(ctx, in, a)
	}
	return contract.AdsSyncPageResult{}, fmt.Errorf("ads: unknown sync stage %q", in.Stage)
}

func (s *Service) entityPage(ctx context.Context, in contract.AdsSyncPageInput, a adsapi.Account, kind string) (contract.AdsSyncPageResult, error) {
	page, err := s.Provider.Entities(ctx, a, kind, in.Plan.Since, in.PageToken)
	if err != nil {
		return contract.AdsSyncPageResult{}, err
	}
	res := contract.AdsSyncPageResult{Next: page.Next}
	for _, e := range page.Entities {
		changed, conflict, err := s.applyEntity(ctx, in.ConnectionID, e)
		if err != nil {
			return contract.AdsSyncPageResult{}, err
		}
		if changed {
			res.Entities++
		}
		if conflict {
			res.Conflicts++
		}
		if t := changeTime(e.LastModified); t.After(res.MaxModified) {
			res.MaxModified = t
		}
	}
	return res, nil
}

func (s *Service) metricPage(ctx context.Context, in contract.AdsSyncPageInput, a adsapi.Account, level string) (contract.AdsSyncPageResult, error) {
	page, err := s.Provider.Metrics(ctx, a, level, in.Plan.From, in.Plan.To, in.PageToken)
	if err != nil {
		return contract.AdsSyncPageResult{}, err
	}
	for _, m := range page.Rows {
		if err := s.putMetric(ctx, in.ConnectionID, m); err != nil {
			return contract.AdsSyncPageResult{}, err
		}
	}
	return contract.AdsSyncPageResult{Next: page.Next, MetricRows: len(page.Rows)}, nil
}

// putMetric writes a day of an entity under its derived id: a second
// sync of the day rewrites the numbers, never adds a row.
func (s *Service) putMetric(ctx context.Context, connID string, m adsapi.MetricRow) error {
	r := s.resource(Metrics)
	id := DerivedID(connID, m.Level, m.EntityID, m.Date)
	nums := store.Doc{"impressions": m.Impressions, "clicks": m.Clicks, "conversions": m.Conversions, "costMicros": m.CostMicros}
	rec := store.Doc{"_id": id, "connection": connID, "level": m.Level, "date": m.Date, "platformId": m.EntityID, "campaignId": m.CampaignID}
	if m.AdGroupID != "" {
		rec["adGroupId"] = m.AdGroupID
	}
	for k, v := range nums {
		rec[k] = v
	}
	stored, err := r.Collection(s.Records.Store).Get(ctx, id)
	switch {
	case err == nil && sameNumbers(stored, m):
		return nil // the day as we have it: no write
	case err == nil:
		_, err = s.Records.Apply(ctx, r, query.ID(id), resource.Change{Set: nums})
		return err
	case !isNotFound(err):
		return err
	}
	_, err = s.Records.Insert(ctx, r, rec)
	if resource.KindOf(err) == resource.KindConflict { // written meanwhile by an earlier attempt
		_, err = s.Records.Apply(ctx, r, query.ID(id), resource.Change{Set: nums})
	}
	return err
}

func sameNumbers(d store.Doc, m adsapi.MetricRow) bool {
	conv, _ := d["conversions"].(float64)
	if n, ok := d["conversions"].(int64); ok {
		conv = float64(n)
	}
	return store.Int(d["impressions"]) == m.Impressions && store.Int(d["clicks"]) == m.Clicks && store.Int(d["costMicros"]) == m.CostMicros && conv == m.Conversions
}

// performancePage writes the keywords' totals over the plan's days.
func (s *Service) performancePage(ctx context.Context, in contract.AdsSyncPageInput, a adsapi.Account) (contract.AdsSyncPageResult, error) {
	page, err := s.Provider.Performance(ctx, a, in.Plan.From, in.Plan.To, in.PageToken)
	if err != nil {
		return contract.AdsSyncPageResult{}, err
	}
	r := s.resource(Keywords)
	for _, m := range page.Rows {
		id := DerivedID(in.ConnectionID, adsapi.KindKeyword, m.EntityID)
		kw, err := r.Collection(s.Records.Store).Get(ctx, id, "performance")
		if isNotFound(err) {
			continue // not synced (yet): the next run writes it
		}
		if err != nil {
			return contract.AdsSyncPageResult{}, err
		}
		perf := performance(m, in.Plan)
		if samePerformance(kw["performance"], perf) {
			continue
		}
		if _, err := s.Records.Apply(ctx, r, query.ID(id), resource.Change{Set: store.Doc{"performance": perf}}); err != nil {
			return contract.AdsSyncPageResult{}, err
		}
	}
	return contract.AdsSyncPageResult{Next: page.Next}, nil
}

// samePerformance compares a stored performance with a new one.
func samePerformance(stored any, next store.Doc) bool {
	old, _ := stored.(map[string]any)
	if old == nil || str(old["from"]) != next["from"] || str(old["to"]) != next["to"] {
		return false
	}
	for _, k := range []string{"impressions", "clicks", "costMicros"} {
		if store.Int(old[k]) != next[k] {
			return false
		}
	}
	conv, _ := old["conversions"].(float64)
	if n, ok := old["conversions"].(int64); ok {
		conv = float64(n)
	}
	return conv == next["conversions"]
}

func performance(m adsapi.MetricRow, plan contract.AdsSyncPlan) store.Doc {
	p := store.Doc{"impressions": m.Impressions, "clicks": m.Clicks, "conversions": m.Conversions, "costMicros": m.CostMicros,
		"from": plan.From, "to": plan.To}
	if m.Impressions > 0 {
		p["ctr"] = float64(m.Clicks) / float64(m.Impressions)
	}
	if m.Clicks > 0 {
		p["averageCpcMicros"] = m.CostMicros / m.Clicks
	}
	return p
}

// Finish records a run. A success moves the cursor to the latest change
// seen (or keeps it) and the metrics to the plan's last day; a revoked
// token moves the connection to its error state, ends its schedule and
// announces adconnections.failed; another failure is noted and the next
// tick tries again.
func (s *Service) Finish(ctx context.Context, in contract.AdsSyncFinishInput) error {
	r := s.resource(Connections)
	last := store.Doc{"status": "ok", "syncId": in.Plan.SyncID, "startedAt": in.Plan.Started, "finishedAt": s.now(),
		"entities": int64(in.Progress.Entities), "metricRows": int64(in.Progress.MetricRows), "conflicts": int64(in.Progress.Conflicts)}
	change := resource.Change{Set: store.Doc{"lastSync": last}, Event: EventSynced}
	switch {
	case in.Revoked:
		last["status"], last["error"] = "failed", in.Failure
		change.Set["state"], change.Set["stateReason"] = StateError, "the platform refused the refresh token (revoked or expired): authorize the connection again"
		change.Event = EventFailed
	case in.Failure != "":
		last["status"], last["error"] = "failed", in.Failure
		change.Event = ""
	default:
		since := in.Plan.Since
		if in.Progress.MaxModified.After(since) {
			since = in.Progress.MaxModified
		}
		change.Set["cursor"] = store.Doc{"entitiesSince": since, "metricsThrough": in.Plan.To}
		if since.IsZero() {
			change.Set["cursor"] = store.Doc{"metricsThrough": in.Plan.To}
		}
	}
	doc, err := s.Records.Apply(ctx, r, query.ID(in.ConnectionID), change)
	if resource.KindOf(err) == resource.KindNotFound {
		return nil // deleted meanwhile
	}
	if err != nil || !in.Revoked {
		return err
	}
	return s.endAfterRevocation(ctx, doc)
}

func (s *Service) endAfterRevocation(ctx context.Context, conn store.Doc) error {
	if s.Schedules != nil {
		if err := s.Schedules.Remove(ctx, str(conn["_id"])); err != nil {
			return err
		}
	}
	return s.revokeCredential(ctx, conn)
}
