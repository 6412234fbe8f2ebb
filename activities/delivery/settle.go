package delivery

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"platform/kernel/store"
	"platform/modules/automation/webhook"
	"platform/workflows/contract"
)

// SettleDelivery parks a delivery whose attempts all failed in
// webhookretries, with the attempts of the round, or records how a manual
// retry round ended. The record's id derives from the delivery, so running
// it again (a retried activity) changes nothing.
func (a *Activities) SettleDelivery(ctx context.Context, in contract.SettleInput) error {
	did := webhook.DeliveryID(in.EventID, in.WebhookID)
	coll := a.Store.Collection(webhook.RetriesCollection)
	old, err := coll.Get(ctx, webhook.RetryRecordID(did))
	if errors.Is(err, store.ErrNotFound) {
		if in.Status != webhook.StatusParked {
			return nil // a first round that did not fail leaves no record
		}
		old = store.Doc{}
	} else if err != nil {
		return err
	}
	fresh, err := a.roundAttempts(ctx, did, in.Round)
	if err != nil {
		return err
	}
	all := mergeAttempts(old["attempts"], fresh)
	now := time.Now().UTC().Truncate(time.Millisecond)
	set := store.Doc{"event": in.EventID, "eventName": in.Event, "webhook": in.WebhookID, "delivery": did,
		"attempts": all, "attemptCount": int64(len(all)), "updatedAt": now}
	if len(all) > 0 {
		set["firstAttemptAt"], set["lastAttemptAt"] = all[0].(store.Doc)["at"], all[len(all)-1].(store.Doc)["at"]
	}
	if r, _ := old["round"].(int64); int(r) <= in.Round {
		set["status"] = in.Status // a newer round, if one started meanwhile, owns the status
	}
	_, err = coll.Upsert(ctx, webhook.RetryRecordID(did), store.Update{Set: set,
		SetOnInsert: store.Doc{"round": int64(0), "createdAt": now}})
	return err
}

// roundAttempts reads the attempt records of one round by their derived ids.
func (a *Activities) roundAttempts(ctx context.Context, did string, round int) ([]store.Doc, error) {
	var out []store.Doc
	coll := a.Store.Collection(webhook.DeliveriesCollection)
	for n := 1; n <= webhook.MaxAttempts; n++ {
		d, err := coll.Get(ctx, webhook.AttemptRecordID(did, round, n))
		if errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		e := store.Doc{"round": d["round"], "attempt": d["attempt"], "at": d["createdAt"], "durationMs": d["durationMs"]}
		for _, k := range []string{"statusCode", "error"} {
			if v, ok := d[k]; ok {
				e[k] = v
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// mergeAttempts joins stored and fresh attempts, one per (round, attempt),
// in order.
func mergeAttempts(stored any, fresh []store.Doc) []any {
	byKey := map[string]store.Doc{}
	old, _ := stored.([]any)
	for _, e := range old {
		if d, ok := e.(store.Doc); ok {
			byKey[attemptKey(d)] = d
		}
	}
	for _, d := range fresh {
		byKey[attemptKey(d)] = d
	}
	list := make([]store.Doc, 0, len(byKey))
	for _, d := range byKey {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { return attemptKey(list[i]) < attemptKey(list[j]) })
	out := make([]any, len(list))
	for i, d := range list {
		out[i] = d
	}
	return out
}

// attemptKey sorts by round, then attempt.
func attemptKey(d store.Doc) string {
	r, _ := d["round"].(int64)
	n, _ := d["attempt"].(int64)
	return fmt.Sprintf("%06d/%03d", r, n)
}
