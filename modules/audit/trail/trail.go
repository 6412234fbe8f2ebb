// Package trail writes the audit trail: append-only records of security-relevant
// actions (sign-in, consent, token issue, refresh-token reuse, revocation).
// Services write through the small Writer interface; admins of a customer
// read them at {audit_url}/auditrecords, a read-only declared resource, so
// nothing can change or delete a record through the API.
package trail

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"platform/kernel/groupcommit"
	"platform/kernel/obs"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// Collection holds the records (scoped: each customer sees its own).
const Collection = "auditrecords"

// Outcomes.
const (
	Success = "success"
	Failure = "failure"
)

// Record is one audited action.
type Record struct {
	Customer      string // defaults to the customer of ctx; records without one are only logged
	Actor         string // user id or client id; empty when unknown (a failed sign-in)
	ActorType     string // "user", "app" or "anonymous"
	Action        string // dotted name, e.g. "oauth.signin"
	Target        string // what was acted on: a client id, an e-mail, a token family
	Outcome       string // Success or Failure
	ClientAddress string
	DebugID       string // defaults to the debug id of ctx
	Details       map[string]any
	Time          time.Time // defaults to now
	// ID, when set, makes the record once-only: it is stored under this id
	// (24 hexadecimal characters), and a record already stored under it
	// counts as written. Retried or repeated writes of one fact (a
	// pipeline run reading a credential) then leave one record.
	ID string
}

// Writer appends audit records; other services use it too.
type Writer interface {
	Write(ctx context.Context, r Record) error
}

// StoreWriter writes records into the store; concurrent records of one
// customer are written together (group commit), each durable before Write
// returns.
type StoreWriter struct {
	Store store.Store
	Log   *slog.Logger

	once    sync.Once
	batches *groupcommit.Inserter
}

// Write appends r. A record needs a customer: the trail is per customer.
func (w *StoreWriter) Write(ctx context.Context, r Record) error {
	if r.Customer == "" {
		r.Customer, _ = tenant.Customer(ctx)
	}
	if r.DebugID == "" {
		r.DebugID = obs.DebugID(ctx)
	}
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	if r.Customer == "" {
		w.Log.WarnContext(ctx, "audit record without customer", "action", r.Action, "target", r.Target, "outcome", r.Outcome)
		return nil
	}
	if r.ID != "" {
		return w.writeOnce(ctx, r)
	}
	w.once.Do(func() {
		w.batches = &groupcommit.Inserter{InsertMany: func(ctx context.Context, cust string, docs []store.Doc) error {
			return w.Store.Collection(Collection).InsertMany(tenant.WithCustomer(ctx, cust), docs)
		}}
	})
	return w.batches.Insert(ctx, r.Customer, docOf(r))
}

// writeOnce stores a once-only record alone (a duplicate in a group
// commit would fail the other records of its batch).
func (w *StoreWriter) writeOnce(ctx context.Context, r Record) error {
	err := w.Store.Collection(Collection).Insert(tenant.WithCustomer(ctx, r.Customer), docOf(r))
	if store.IsDuplicate(err) {
		return nil
	}
	return err
}

func docOf(r Record) store.Doc {
	id := r.ID
	if id == "" {
		id = store.NewID()
	}
	d := store.Doc{
		"_id": id, "time": r.Time.UTC().Truncate(time.Millisecond), "action": r.Action, "outcome": r.Outcome,
		"actor": r.Actor, "actorType": r.ActorType, "target": r.Target, "clientAddress": r.ClientAddress, "debugId": r.DebugID,
	}
	if len(r.Details) > 0 {
		d["details"] = store.Doc(r.Details)
	}
	return d
}

// Logged wraps a Writer so that a failure to write is logged rather than
// failing the audited action (the action already happened).
func Logged(ctx context.Context, w Writer, log *slog.Logger, r Record) {
	if err := w.Write(ctx, r); err != nil {
		log.ErrorContext(ctx, "audit record not written", "action", r.Action, "error", err)
	}
}
