package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/automation/webhook"
)

// The circuit breaker keeps a failure streak on the webhook record,
// written only by retrier rounds and only when it changes: failingSince
// (the first failed attempt of the deliveries failing since the last
// success the retrier saw) and parkedInRow (deliveries parked since).
// A successful round resets a streak that is set; successes it does not
// see (first attempts, manual retries) are found in webhookdeliveries
// before the webhook is disabled, so they can delay a reset but never
// cause a wrong disable.

// streak is a webhook's failure streak.
type streak struct {
	parked int64
	since  time.Time
}

func streakOf(hook store.Doc) streak {
	return streak{parked: intOf(hook["parkedInRow"]), since: timeOf(hook["failingSince"])}
}

func (s streak) zero() bool { return s.parked == 0 && s.since.IsZero() }

// breakerOn: at least one threshold is set.
func (a *Activities) breakerOn() bool { return a.DisableAfterParked > 0 || a.DisableAfter > 0 }

// judgeStreak brings the streak up to date after a round and disables
// the webhook when it reaches a threshold; true when it did.
func (a *Activities) judgeStreak(ctx context.Context, r *round) (bool, error) {
	switch {
	case r.out.Delivered > 0:
		return false, a.resetStreak(ctx, r.hookID, r.hook)
	case r.failed == 0 || !a.breakerOn():
		return false, nil
	}
	s, err := a.extendStreak(ctx, r.hookID, streakOf(r.hook), r.out.Parked, r.since)
	if err != nil {
		return false, err
	}
	reason := a.tripReason(s, r.now)
	if reason == "" {
		return false, nil
	}
	if ok, err := a.noSuccessSince(ctx, r.hookID, s.since); err != nil || !ok {
		if err == nil {
			err = a.resetStreak(ctx, r.hookID, nil)
		}
		return false, err
	}
	return a.disable(ctx, r.hookID, reason)
}

// extendStreak adds the round's parked deliveries to the streak and
// starts it at since if none runs; no write when neither changes it.
func (a *Activities) extendStreak(ctx context.Context, hookID string, s streak, parked int, since time.Time) (streak, error) {
	if parked == 0 && !s.since.IsZero() {
		return s, nil
	}
	u := store.Update{}
	if parked > 0 {
		u.Inc = map[string]any{"parkedInRow": int64(parked)}
	}
	if s.since.IsZero() {
		u.Set = store.Doc{"failingSince": since.UTC()}
	}
	doc, err := a.Store.Collection(webhook.Collection).Update(ctx, query.ID(hookID), u)
	if err != nil {
		return streak{}, ignoreNotFound(err)
	}
	return streakOf(doc), nil
}

// resetStreak clears the webhook's streak; hook is the record as read
// (nil: unknown), and a record with no streak is not written.
func (a *Activities) resetStreak(ctx context.Context, hookID string, hook store.Doc) error {
	if hook != nil && streakOf(hook).zero() {
		return nil
	}
	_, err := a.Store.Collection(webhook.Collection).Update(ctx, query.ID(hookID), store.Update{Unset: webhook.StreakFields})
	return ignoreNotFound(err)
}

// tripReason says why the streak disables the webhook at now ("" when it
// does not).
func (a *Activities) tripReason(s streak, now time.Time) string {
	if a.DisableAfterParked > 0 && s.parked >= int64(a.DisableAfterParked) {
		return fmt.Sprintf("%d deliveries in a row were parked after their last attempt failed, with no successful delivery in between", s.parked)
	}
	if a.DisableAfter > 0 && !s.since.IsZero() && now.Sub(s.since) >= a.DisableAfter {
		return fmt.Sprintf("every delivery attempt failed for %s, since %s", spell(a.DisableAfter), s.since.UTC().Format(time.RFC3339))
	}
	return ""
}

// noSuccessSince reports whether no attempt to the webhook succeeded
// since t, whoever made it (the dispatcher's first attempts and manual
// retries included).
func (a *Activities) noSuccessSince(ctx context.Context, hookID string, t time.Time) (bool, error) {
	ok, err := a.Store.Collection(webhook.DeliveriesCollection).Find(ctx, store.FindOptions{
		Filter: query.AllOf(query.Eq("webhook", hookID), query.Eq("status", webhook.StatusDelivered),
			query.Field{Path: "createdAt", Conds: []query.Cond{query.Compare{Op: query.OpGte, Value: t.UTC()}}}),
		Fields: []string{"_id"}, Limit: 1,
	})
	return len(ok) == 0, err
}

// disable turns the webhook off, through the record service like every
// change of a tenant's record (stamped, announced as webhooks.disabled),
// and parks its queued deliveries in one write, so they can be retried
// by id once it is enabled again. Only an active webhook is disabled.
func (a *Activities) disable(ctx context.Context, hookID, reason string) (bool, error) {
	hooks, err := a.webhookResource()
	if err != nil {
		return false, err
	}
	_, err = a.Records.Apply(ctx, hooks, query.AllOf(query.ID(hookID), query.Eq("active", true)), resource.Change{
		Set:   store.Doc{"active": false, "disabledAt": nowMillis(), "disabledReason": "disabled by the platform: " + reason},
		Event: webhook.EventDisabled,
	})
	if resource.KindOf(err) == resource.KindNotFound {
		return false, nil // turned off or deleted meanwhile: its next round ends the queue
	} else if err != nil {
		return false, err
	}
	a.Log.WarnContext(ctx, "webhook disabled", "webhook", hookID, "reason", reason)
	_, err = a.endRetries(ctx, hookID, webhook.StatusParked)
	return true, err
}

// spell writes a duration in whole hours or minutes when it is one.
func spell(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return d.String()
}

func ignoreNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
