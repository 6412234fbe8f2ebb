package adsync

import (
	"context"
	"errors"
	"strconv"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/ads/adsapi"
	"platform/workflows/contract"
)

// ErrParentNotPushed: an ad group's campaign is not at the platform yet;
// the push is retried until it is.
var ErrParentNotPushed = errors.New("ads: the ad group's campaign is not at the platform yet")

// Version names a record's state: its updatedAt in milliseconds.
func Version(rec store.Doc) string {
	t, _ := rec["updatedAt"].(time.Time)
	return strconv.FormatInt(t.UnixMilli(), 10)
}

// Push sends a pending campaign or ad group to the platform. When the
// platform changed the entity after the change we know of, nothing is
// sent: the record is marked in conflict instead.
func (s *Service) Push(ctx context.Context, in contract.AdsPushInput) error {
	r := s.resource(in.Plural)
	rec, err := s.Records.Load(ctx, r, in.RecordID)
	if isNotFound(err) {
		return nil
	}
	if err != nil || Version(rec) != in.Version || rec["syncState"] != SyncPending {
		return err // a later write has its own push
	}
	conn, err := s.connection(ctx, str(rec["connection"]))
	if err != nil {
		return err
	}
	a, err := s.account(ctx, conn)
	if err != nil {
		return err
	}
	kind := KindOf(in.Plural)
	e := entityOf(kind, rec)
	if kind == adsapi.KindAdGroup {
		if e.CampaignID, err = s.campaignPlatformID(ctx, str(rec["campaign"])); err != nil {
			return err
		}
	}
	change := adsapi.Change{Entity: e}
	if e.ResourceName != "" {
		remote, err := s.Provider.Entity(ctx, a, kind, e.ResourceName)
		if err != nil {
			return err
		}
		if known, _ := rec["platformUpdatedAt"].(time.Time); changeTime(remote.LastModified).After(known) {
			return s.markConflict(ctx, r, rec, remote)
		}
		change.Fields = pushMask[kind]
	}
	got, err := s.Provider.Mutate(ctx, a, change)
	if err != nil {
		return err
	}
	return s.pushed(ctx, r, rec, got)
}

func (s *Service) campaignPlatformID(ctx context.Context, campaignID string) (string, error) {
	c, err := s.Records.Load(ctx, s.resource(Campaigns), campaignID)
	if err != nil {
		return "", err
	}
	if id := str(c["platformId"]); id != "" {
		return id, nil
	}
	return "", ErrParentNotPushed
}

// pushed records the platform's answer: synced, unless the record changed
// meanwhile (its own push follows); the platform's ids and change time
// are kept either way, so our own change is never taken for theirs.
func (s *Service) pushed(ctx context.Context, r *resource.Resource, rec store.Doc, got adsapi.Entity) error {
	ids := store.Doc{"platformId": got.ID, "resourceName": got.ResourceName, "platformUpdatedAt": changeTime(got.LastModified)}
	set := store.Doc{"syncState": SyncSynced, "lastPushedAt": s.now()}
	for k, v := range ids {
		set[k] = v
	}
	doc, err := s.Records.ApplyIfUnchanged(ctx, r, rec, resource.Change{Set: set, Unset: []string{"conflict", "syncError"}, Event: EventPushed})
	if err != nil || doc != nil {
		return err
	}
	_, err = s.Records.Apply(ctx, r, query.ID(str(rec["_id"])), resource.Change{Set: ids})
	return err
}

// PushFailed records a push that failed for good on the version it was for.
func (s *Service) PushFailed(ctx context.Context, in contract.AdsPushFailedInput) error {
	r := s.resource(in.Plural)
	rec, err := s.Records.Load(ctx, r, in.RecordID)
	if isNotFound(err) {
		return nil
	}
	if err != nil || Version(rec) != in.Version || rec["syncState"] != SyncPending {
		return err
	}
	_, err = s.Records.ApplyIfUnchanged(ctx, r, rec, resource.Change{Set: store.Doc{"syncState": SyncError, "syncError": in.Failure}})
	return err
}

// Keep says which side a resolved conflict keeps.
const (
	KeepPlatform = "platform"
	KeepOurs     = "ours"
)

// Resolve settles a conflict: the platform's values replace ours, or ours
// are pushed over the platform's change (the answer is then pending).
func (s *Service) Resolve(ctx context.Context, r *resource.Resource, rec store.Doc, keep string) (store.Doc, error) {
	c, _ := rec["conflict"].(map[string]any)
	if rec["syncState"] != SyncConflict || c == nil {
		return nil, resource.Conflict("syncState", "the %s is %v, not in conflict: nothing to resolve", r.Title, rec["syncState"])
	}
	set := store.Doc{"platformUpdatedAt": c["platformChangedAt"], "syncState": SyncPending}
	if keep == KeepPlatform {
		set["syncState"] = SyncSynced
		platform, _ := c["platform"].(map[string]any)
		for k, v := range platform {
			set[k] = v
		}
	}
	return s.Records.ApplyIfUnchanged(ctx, r, rec, resource.Change{Set: set, Unset: []string{"conflict"}})
}
