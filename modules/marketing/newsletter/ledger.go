package newsletter

import (
	"context"
	"errors"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// States of a ledger entry. An entry is claimed (sending) before its mail
// goes out and committed (sent) once the SMTP server accepted the mail:
// the commit is what makes a retried page skip the recipient.
const (
	entrySending = "sending"
	entrySent    = "sent"
	entryFailed  = "failed"
)

// ClaimLease is how long a claim keeps another attempt of the page off
// its recipient unless Sender.Lease says otherwise: longer than one SMTP
// transaction may take (sendTimeout), so a claim is only taken over from
// an attempt that died.
const ClaimLease = 2 * time.Minute

// SendTimeout bounds one mail's SMTP transaction, which a cancelled
// activity does not interrupt (a mail cut off after the final dot may
// have been accepted without the ledger knowing); at most half the lease.
const SendTimeout = 45 * time.Second

func (s *Sender) lease() time.Duration {
	if s.Lease > 0 {
		return s.Lease
	}
	return ClaimLease
}

func (s *Sender) sendTimeout() time.Duration { return min(SendTimeout, s.lease()/2) }

// LedgerIndexes: one entry per newsletter and consumer.
var LedgerIndexes = []store.Index{
	{Name: "uniq_recipient", Keys: []store.SortField{{Field: "newsletter"}, {Field: "consumer"}}, Unique: true},
}

// claim is the outcome of claiming a recipient.
type claim int

const (
	claimed  claim = iota // ours to send
	done                  // sent or failed before: skip
	deferred              // claimed by another live attempt: later
)

// entries are the page's ledger entries by consumer.
func (s *Sender) entries(ctx context.Context, newsletter string, consumers []string) (map[string]store.Doc, error) {
	ids := make([]any, len(consumers))
	for i, c := range consumers {
		ids[i] = c
	}
	docs, err := s.Service.Store.Collection(Ledger).Find(ctx, store.FindOptions{Filter: query.AllOf(
		query.Eq("newsletter", newsletter), query.Field{Path: "consumer", Conds: []query.Cond{query.In{Values: ids}}})})
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.Doc, len(docs))
	for _, d := range docs {
		c, _ := d["consumer"].(string)
		out[c] = d
	}
	return out, nil
}

// claim takes the recipient for owner: a new entry (with the id of its
// mail log, so a resend keeps the Message-ID), or one whose claim lapsed.
func (s *Sender) claim(ctx context.Context, newsletter, consumer, to, owner string, prev store.Doc) (store.Doc, claim, error) {
	if prev == nil {
		entry := store.Doc{"_id": store.NewID(), "newsletter": newsletter, "consumer": consumer, "to": to,
			"log": store.NewID(), "status": entrySending, "owner": owner, "claimedAt": now(), "createdAt": now()}
		err := s.Service.Store.Collection(Ledger).Insert(ctx, entry)
		if !store.IsDuplicate(err) {
			return entry, claimed, err
		}
		if prev, err = s.entry(ctx, newsletter, consumer); err != nil {
			return nil, deferred, err
		}
	}
	return s.takeOver(ctx, prev, owner)
}

func (s *Sender) entry(ctx context.Context, newsletter, consumer string) (store.Doc, error) {
	docs, err := s.Service.Store.Collection(Ledger).Find(ctx, store.FindOptions{
		Filter: query.AllOf(query.Eq("newsletter", newsletter), query.Eq("consumer", consumer)), Limit: 1})
	if err == nil && len(docs) == 0 {
		err = errors.New("newsletter: a ledger entry vanished")
	}
	if err != nil {
		return nil, err
	}
	return docs[0], nil
}

// takeOver claims an existing entry still sending whose claim lapsed
// (its attempt died, or released it on a 4xx reply).
func (s *Sender) takeOver(ctx context.Context, prev store.Doc, owner string) (store.Doc, claim, error) {
	if prev["status"] != entrySending {
		return prev, done, nil
	}
	at, _ := prev["claimedAt"].(time.Time)
	if prev["owner"] != owner && time.Since(at) < s.lease() {
		return prev, deferred, nil
	}
	id, _ := prev["_id"].(string)
	where := query.AllOf(query.ID(id), query.Eq("status", entrySending), query.Eq("owner", prev["owner"]))
	doc, err := s.Service.Store.Collection(Ledger).Update(ctx, where, store.Update{Set: store.Doc{"owner": owner, "claimedAt": now()}})
	if errors.Is(err, store.ErrNotFound) {
		return prev, deferred, nil
	}
	return doc, claimed, err
}

// settle records the outcome of the claimed entry: sent or failed, or
// released (a transient failure) so the next attempt sends at once. It
// runs to the end even when ctx is cancelled: the mail went out.
func (s *Sender) settle(ctx context.Context, entry store.Doc, status, reason string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	id, _ := entry["_id"].(string)
	set := store.Doc{"status": status, "settledAt": now()}
	if reason != "" {
		set["reason"] = reason
	}
	if status == entrySending {
		set = store.Doc{"claimedAt": time.Unix(0, 0).UTC(), "reason": reason}
	}
	_, err := s.Service.Store.Collection(Ledger).Update(ctx, query.ID(id), store.Update{Set: set})
	return err
}
