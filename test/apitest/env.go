// Package apitest runs a module's API tests as tables of scenarios (after
// PocketBase's tests/api.go): each scenario is one call with everything it
// must answer and change, and every call is also checked for what all
// answers share (the envelope, the module's OpenAPI document, exactly the
// expected events, no change from a read or a refused call). Modules keep
// their own fixtures (records, tokens, links) in their tests and embed Env.
package apitest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/events"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/test/testenv"
)

// Options describe a module's API under test.
type Options struct {
	Platform testenv.Options
	// Modules are checked against their published OpenAPI documents on
	// every call (testenv.Platform.CheckOpenAPI).
	Modules []string
	// Rights are the scopes of Admin, Other and of the token a scenario
	// sends unless it says otherwise.
	Rights []string
	// Collections are those the module's calls may change: a read or a
	// refused call must leave them as they were, for both customers.
	Collections []string
}

// Env is a platform of its own for one top-level test, with a second
// customer (B) beside the test customer (A).
type Env struct {
	T         testing.TB
	P         *testenv.Platform
	Admin     string          // token of customer A's admin with Rights
	Other     string          // token of customer B's admin with Rights
	OtherCtx  context.Context // customer B's context, to read its store
	OtherUser string          // customer B's admin
	Recorded  []Event         // the events of the scenario's call (set by Run)
	// CalledAt is when the scenario's call began (set by Run), later
	// than every write of its Given.
	CalledAt time.Time
	opts     Options
}

// New runs the test in parallel with the others, on a platform of its own.
func New(t *testing.T, o Options) *Env {
	t.Helper()
	t.Parallel()
	return Setup(t, testenv.NewPlatform(t, o.Platform), o)
}

// Setup finishes an Env on a started platform (tests that mount extra
// routes do so between NewPlatform and Setup, before the first request).
func Setup(t testing.TB, p *testenv.Platform, o Options) *Env {
	t.Helper()
	for _, m := range o.Modules {
		p.CheckOpenAPI(m)
	}
	cust, user := p.OtherCustomer("other")
	return &Env{
		T: t, P: p, Admin: p.Token(o.Rights...), Other: p.TokenFor(cust.ID, user.ID, o.Rights...),
		OtherCtx: tenant.WithCustomer(context.Background(), cust.ID), OtherUser: user.ID, opts: o,
	}
}

// API returns the Env itself: a module's fixture embedding it hands it to Run.
func (e *Env) API() *Env { return e }

// For binds the Env to a subtest.
func (e *Env) For(t testing.TB) *Env {
	c := *e
	c.T, c.P = t, e.P.For(t)
	return &c
}

// Create POSTs a record with the Admin token and returns its id.
func (e *Env) Create(path string, body any) string {
	e.T.Helper()
	r := e.P.Do(http.MethodPost, path, e.Admin, body)
	require.Equal(e.T, http.StatusCreated, r.Status, "create at %s: %s", path, r.Body)
	id, _ := r.Payload()["_id"].(string)
	require.Len(e.T, id, 24)
	return id
}

// Stored reads a record of customer A straight from the store (nil when gone).
func (e *Env) Stored(coll, id string) store.Doc {
	e.T.Helper()
	d, err := e.P.Store.Collection(coll).Get(e.P.Ctx(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	require.NoError(e.T, err)
	return d
}

// Colleague is a second user of customer A (made on first use) and a
// token of it with the Env's rights: a write by it is told apart, in
// modifiedBy, from the Admin's records a scenario's Given made.
func (e *Env) Colleague() (id, token string) {
	e.T.Helper()
	u, _, err := e.P.Identity.EnsureUser(e.P.Ctx(), "colleague@example.com", "Colleague", strings.Repeat("pw", 8), nil)
	require.NoError(e.T, err)
	return u.ID, e.P.TokenFor(e.P.Customer.ID, u.ID, e.opts.Rights...)
}

// CheckStamped asserts that the scenario's call wrote customer A's record
// coll/id with the bookkeeping of every write: updatedAt from the call
// (not before CalledAt) and modifiedBy naming actor.
func (e *Env) CheckStamped(coll, id, actor string) {
	e.T.Helper()
	d := e.Stored(coll, id)
	require.NotNil(e.T, d, "%s/%s is stored", coll, id)
	assert.Equal(e.T, actor, d["modifiedBy"], "modifiedBy of %s/%s", coll, id)
	updated, ok := d["updatedAt"].(time.Time)
	require.True(e.T, ok, "updatedAt of %s/%s is a time: %v", coll, id, d["updatedAt"])
	assert.False(e.T, updated.Before(e.CalledAt), "updatedAt of %s/%s (%s) moves with the call (begun %s)", coll, id, updated, e.CalledAt)
}

// Event is a recorded event.
type Event struct {
	ID, Name string
	Data     store.Doc
}

// Events lists customer A's recorded events.
func (e *Env) Events() []Event {
	e.T.Helper()
	docs, err := e.P.Store.Collection(events.Collection).Find(e.P.Ctx(), store.FindOptions{})
	require.NoError(e.T, err)
	out := make([]Event, 0, len(docs))
	for _, d := range docs {
		data, _ := d["data"].(map[string]any)
		out = append(out, Event{ID: d["_id"].(string), Name: d["name"].(string), Data: data})
	}
	return out
}

// EventsAfter runs do and returns the events recorded meanwhile.
func (e *Env) EventsAfter(do func()) []Event {
	e.T.Helper()
	seen := map[string]bool{}
	for _, ev := range e.Events() {
		seen[ev.ID] = true
	}
	do()
	var out []Event
	for _, ev := range e.Events() {
		if !seen[ev.ID] {
			out = append(out, ev)
		}
	}
	return out
}

// Names lists the events' names, sorted.
func Names(evs []Event) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, ev.Name)
	}
	sort.Strings(out)
	return out
}

// Snapshot reads every record of both customers in the module's
// collections, and customer B's events, ordered by id.
func (e *Env) Snapshot() map[string][]store.Doc {
	e.T.Helper()
	out := map[string][]store.Doc{}
	for who, ctx := range map[string]context.Context{"A": e.P.Ctx(), "B": e.OtherCtx} {
		for _, c := range slices.Concat(e.opts.Collections, []string{events.Collection}) {
			if who == "A" && c == events.Collection {
				continue // compared by name with the scenario's events
			}
			docs, err := e.P.Store.Collection(c).Find(ctx, store.FindOptions{})
			require.NoError(e.T, err)
			sort.Slice(docs, func(i, j int) bool { return docs[i]["_id"].(string) < docs[j]["_id"].(string) })
			out[who+"/"+c] = docs
		}
	}
	return out
}
