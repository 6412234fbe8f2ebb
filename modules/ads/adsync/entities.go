package adsync

import (
	"context"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/ads/adsapi"
)

// pluralOf is the resource of each kind of entity.
var pluralOf = map[string]string{adsapi.KindCampaign: Campaigns, adsapi.KindAdGroup: AdGroups, adsapi.KindKeyword: Keywords}

// KindOf is the kind of entity a resource holds.
func KindOf(plural string) string {
	for k, p := range pluralOf {
		if p == plural {
			return k
		}
	}
	return ""
}

// values are an entity's fields as a record holds them.
func values(e adsapi.Entity) store.Doc {
	switch e.Kind {
	case adsapi.KindCampaign:
		d := store.Doc{"name": e.Name, "status": e.Status, "channelType": e.ChannelType, "budgetMicros": e.BudgetMicros}
		for k, v := range map[string]string{"startDate": e.StartDate, "endDate": e.EndDate} {
			if v != "" {
				d[k] = v
			}
		}
		return d
	case adsapi.KindAdGroup:
		return store.Doc{"name": e.Name, "status": e.Status, "cpcBidMicros": e.CpcBidMicros}
	}
	return store.Doc{"text": e.Name, "matchType": e.MatchType, "status": e.Status, "cpcBidMicros": e.CpcBidMicros}
}

// entityOf is a campaign or ad group record as the platform takes it.
func entityOf(kind string, rec store.Doc) adsapi.Entity {
	e := adsapi.Entity{Kind: kind, ResourceName: str(rec["resourceName"]), ID: str(rec["platformId"]), Name: str(rec["name"]), Status: str(rec["status"])}
	if kind == adsapi.KindCampaign {
		e.ChannelType, e.BudgetMicros = str(rec["channelType"]), store.Int(rec["budgetMicros"])
		e.StartDate, e.EndDate = str(rec["startDate"]), str(rec["endDate"])
	} else {
		e.CpcBidMicros = store.Int(rec["cpcBidMicros"])
	}
	return e
}

// pushMask names the fields a push sets, as the platform writes them.
var pushMask = map[string][]string{
	adsapi.KindCampaign: {"name", "status", "advertisingChannelType", "startDate", "endDate", "budgetAmountMicros"},
	adsapi.KindAdGroup:  {"name", "status", "cpcBidMicros"},
}

// findEntity is the record of a platform entity: by its derived id, or,
// for one created through the API, by its platform id.
func (s *Service) findEntity(ctx context.Context, r *resource.Resource, connID, kind, platformID string) (store.Doc, error) {
	doc, err := r.Collection(s.Records.Store).Get(ctx, DerivedID(connID, kind, platformID))
	if err == nil || !isNotFound(err) {
		return doc, err
	}
	docs, err := r.Collection(s.Records.Store).Find(ctx, store.FindOptions{Filter: query.AllOf(query.Eq("connection", connID), query.Eq("platformId", platformID)), Limit: 1})
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return docs[0], nil
}

func isNotFound(err error) bool {
	return err == store.ErrNotFound || resource.KindOf(err) == resource.KindNotFound
}

// parents are the record ids of an entity's campaign and ad group.
func (s *Service) parents(ctx context.Context, connID string, e adsapi.Entity) (store.Doc, error) {
	out := store.Doc{}
	for field, ref := range map[string][2]string{"campaign": {adsapi.KindCampaign, e.CampaignID}, "adgroup": {adsapi.KindAdGroup, e.AdGroupID}} {
		if ref[1] == "" {
			continue
		}
		doc, err := s.findEntity(ctx, s.resource(pluralOf[ref[0]]), connID, ref[0], ref[1])
		if err != nil {
			return nil, err
		}
		if doc != nil {
			out[field] = doc["_id"]
			if c, ok := doc["campaign"]; ok && field == "adgroup" {
				out["campaign"] = c
			}
		}
	}
	return out, nil
}

// applyEntity brings a platform entity into its record. A record changed
// here and not pushed yet is not overwritten: it is marked in conflict
// with the platform's values beside ours (true).
func (s *Service) applyEntity(ctx context.Context, connID string, e adsapi.Entity) (changed, conflict bool, err error) {
	e.LastModified = changeTime(e.LastModified)
	r := s.resource(pluralOf[e.Kind])
	old, err := s.findEntity(ctx, r, connID, e.Kind, e.ID)
	if err != nil {
		return false, false, err
	}
	set, err := s.parents(ctx, connID, e)
	if err != nil {
		return false, false, err
	}
	for k, v := range values(e) {
		set[k] = v
	}
	set["platformId"], set["resourceName"], set["platformUpdatedAt"] = e.ID, e.ResourceName, e.LastModified
	if e.Kind != adsapi.KindKeyword {
		set["syncState"] = SyncSynced
	}
	if old == nil {
		set["_id"], set["connection"] = DerivedID(connID, e.Kind, e.ID), connID
		_, err := s.Records.Insert(ctx, r, set)
		return true, false, err
	}
	known, _ := old["platformUpdatedAt"].(time.Time)
	if !e.LastModified.After(known) {
		return false, false, nil // ours already (our own push, a page read again)
	}
	if st := str(old["syncState"]); st == SyncPending || st == SyncConflict || st == SyncError {
		return true, true, s.markConflict(ctx, r, old, e)
	}
	_, err = s.Records.Apply(ctx, r, query.ID(str(old["_id"])), resource.Change{Set: set, Unset: []string{"conflict", "syncError"}, Event: resource.EventUpdated})
	return true, false, err
}

// changeTime is a platform change time at the precision records keep
// (milliseconds), so a time read back compares equal to itself.
func changeTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// markConflict keeps our values and shows the platform's beside them.
func (s *Service) markConflict(ctx context.Context, r *resource.Resource, old store.Doc, remote adsapi.Entity) error {
	c := store.Doc{"detectedAt": s.now(), "platformChangedAt": changeTime(remote.LastModified), "platform": values(remote)}
	if known, ok := old["platformUpdatedAt"].(time.Time); ok {
		c["knownChangedAt"] = known
	}
	_, err := s.Records.Apply(ctx, r, query.ID(str(old["_id"])), resource.Change{Set: store.Doc{"syncState": SyncConflict, "conflict": c}, Event: EventConflicted})
	return err
}
