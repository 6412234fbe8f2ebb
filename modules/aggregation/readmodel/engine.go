package readmodel

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Collections of the engine (scoped to the customer).
const (
	// Contribs holds, per model and entity, the contribution last applied.
	Contribs = "aggregationcontribs"
	// Inbox holds the events waiting to be applied (pending) and, until
	// pruned, those applied (so a repeated event is recognized).
	Inbox = "aggregationinbox"
	// State holds the customer's one state document.
	State = "aggregationstate"
)

// StateID is the id of the customer's state document in ctx (ids are
// unique across customers, so it names the customer).
func StateID(ctx context.Context) string {
	c, _ := tenant.Customer(ctx)
	return "state:" + c
}

// Snapshot is a record as one event (or the record itself) shows it.
type Snapshot struct {
	Collection string
	Entity     string
	Version    time.Time
	Gone       bool // deleted: its contribution is taken back for good
	Record     store.Doc
}

// Engine applies snapshots to the read models of the customer in ctx.
// Calls for one customer must not run concurrently (the customer's
// Aggregator workflow runs them one after another).
type Engine struct {
	Store store.Store
	Now   func() time.Time
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC().Truncate(time.Millisecond)
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

// intent is a batch computed and saved before any row moves: a batch
// interrupted half way is finished from it, and a row already moved by it
// (its lastBatch) is not moved twice.
type intent struct {
	Batch    string    `json:"batch"`
	Rows     []rowOp   `json:"rows"`
	Contribs []contrib `json:"contribs"`
	Inbox    []string  `json:"inbox"`
}

type rowOp struct {
	Model string               `json:"model"`
	ID    string               `json:"id"`
	Key   map[string]any       `json:"key"`
	Inc   map[string]int64     `json:"inc"`
	Max   map[string]time.Time `json:"max,omitempty"`
}

type rowPart struct {
	ID  string           `json:"id"`
	Key map[string]any   `json:"key"`
	Inc map[string]int64 `json:"inc"`
}

type contrib struct {
	ID         string    `json:"id"`
	Model      string    `json:"model"`
	Collection string    `json:"collection"`
	Entity     string    `json:"entity"`
	Version    time.Time `json:"version"`
	Gone       bool      `json:"gone"`
	Rows       []rowPart `json:"rows"`
	// New: none was stored when the batch was planned (inserted in bulk).
	New bool `json:"new,omitempty"`
}

// rowID derives a row's id from its model and key (24 hex digits, like
// every record id); a row keyed by one record id has that id, so
// /aggregation/consumeractivity/<consumer id> finds the consumer's row.
func rowID(customer, model string, key map[string]any) string {
	if len(key) == 1 {
		for _, v := range key {
			if s, ok := v.(string); ok && isObjectID(s) {
				return s
			}
		}
	}
	names := make([]string, 0, len(key))
	for k := range key {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := []string{customer, model}
	for _, k := range names {
		s, _ := key[k].(string)
		parts = append(parts, k, s)
	}
	return contract.DerivedID(parts...)
}

func contribID(customer, model, collection, entity string) string {
	return customer + "/" + model + "/" + collection + "/" + entity
}

// Resume finishes a batch an earlier call left half done.
func (e *Engine) Resume(ctx context.Context) error {
	in, err := e.savedIntent(ctx)
	if err != nil || in == nil {
		return err
	}
	return e.execute(ctx, in)
}

func (e *Engine) savedIntent(ctx context.Context) (*intent, error) {
	doc, err := e.Store.Collection(State).Get(ctx, StateID(ctx), "intent")
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw, _ := doc["intent"].(string)
	if raw == "" {
		return nil, nil
	}
	var in intent
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		return nil, err
	}
	return &in, nil
}

// Apply applies snaps to the models (all when only is empty) as one batch,
// then marks inbox ids applied.
func (e *Engine) Apply(ctx context.Context, snaps []Snapshot, only []string, inbox []string) error {
	in, err := e.plan(ctx, snaps, only)
	if err != nil {
		return err
	}
	in.Inbox = inbox
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if _, err := e.Store.Collection(State).Upsert(ctx, StateID(ctx), store.Update{Set: store.Doc{"intent": string(raw)}}); err != nil {
		return err
	}
	return e.execute(ctx, in)
}

// plan computes a batch: every snapshot's difference to the contribution
// last applied for its entity, summed per row.
func (e *Engine) plan(ctx context.Context, snaps []Snapshot, only []string) (*intent, error) {
	sort.SliceStable(snaps, func(i, j int) bool { return snaps[i].Version.Before(snaps[j].Version) })
	customer, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	p := planner{e: e, ctx: ctx, customer: customer, seen: map[string]*contrib{}, rows: map[string]*rowOp{}}
	if err := p.prefetch(selected(only), snaps); err != nil {
		return nil, err
	}
	for _, m := range selected(only) {
		for _, s := range m.Sources {
			for i := range snaps {
				if snaps[i].Collection == s.Collection {
					if err := p.add(m, s, &snaps[i]); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return p.intent(), nil
}

func selected(only []string) []*Model {
	if len(only) == 0 {
		return Models()
	}
	var out []*Model
	for _, n := range only {
		if m := ByName(n); m != nil {
			out = append(out, m)
		}
	}
	return out
}

type planner struct {
	e        *Engine
	ctx      context.Context
	customer string
	stored   map[string]*contrib // read by prefetch; nil: read one by one
	seen     map[string]*contrib // by contrib id: what the batch leaves
	order    []string
	rows     map[string]*rowOp
	rowIx    []string
}

// add applies one snapshot of an entity to model m through source s.
func (p *planner) add(m *Model, s Source, snap *Snapshot) error {
	id := contribID(p.customer, m.Name, s.Collection, snap.Entity)
	old, err := p.contrib(id)
	if err != nil {
		return err
	}
	if old != nil && (old.Gone || snap.Version.Before(old.Version)) {
		return nil // deleted already, or older than what was applied
	}
	next := &contrib{ID: id, Model: m.Name, Collection: s.Collection, Entity: snap.Entity, Version: snap.Version, Gone: snap.Gone, New: old == nil || old.New}
	var rows []Row
	if !snap.Gone {
		rows = s.Rows(snap.Record)
	}
	if old != nil {
		for _, part := range old.Rows {
			p.move(m.Name, part.ID, part.Key, part.Inc, -1, nil)
		}
	}
	for _, r := range rows {
		rid := rowID(p.customer, m.Name, r.Key)
		next.Rows = append(next.Rows, rowPart{ID: rid, Key: r.Key, Inc: r.Inc})
		p.move(m.Name, rid, r.Key, r.Inc, 1, r.Max)
	}
	if _, ok := p.seen[id]; !ok {
		p.order = append(p.order, id)
	}
	p.seen[id] = next
	return nil
}

// contrib is the contribution of id as the batch stands: planned earlier
// in the batch, or stored.
func (p *planner) contrib(id string) (*contrib, error) {
	if c, ok := p.seen[id]; ok {
		return c, nil
	}
	if p.stored != nil {
		return p.stored[id], nil
	}
	doc, err := p.e.Store.Collection(Contribs).Get(p.ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return contribOf(doc)
}

// prefetch reads the stored contributions of every snapshot the batch
// may apply in one query (a store that scans for any filter but _id
// scans once per batch, not once per event).
func (p *planner) prefetch(models []*Model, snaps []Snapshot) error {
	var ids []any
	for _, m := range models {
		for _, s := range m.Sources {
			for i := range snaps {
				if snaps[i].Collection == s.Collection {
					ids = append(ids, contribID(p.customer, m.Name, s.Collection, snaps[i].Entity))
				}
			}
		}
	}
	p.stored = map[string]*contrib{}
	if len(ids) == 0 {
		return nil
	}
	docs, err := p.e.Store.Collection(Contribs).Find(p.ctx, store.FindOptions{Filter: query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: ids}}}})
	if err != nil {
		return err
	}
	for _, d := range docs {
		c, err := contribOf(d)
		if err != nil {
			return err
		}
		p.stored[c.ID] = c
	}
	return nil
}

func (p *planner) move(model, id string, key map[string]any, inc map[string]int64, sign int64, max map[string]time.Time) {
	op, ok := p.rows[id]
	if !ok {
		op = &rowOp{Model: model, ID: id, Key: key, Inc: map[string]int64{}}
		p.rows[id] = op
		p.rowIx = append(p.rowIx, id)
	}
	for k, v := range inc {
		op.Inc[k] += sign * v
	}
	for k, t := range max {
		if op.Max == nil {
			op.Max = map[string]time.Time{}
		}
		if t.After(op.Max[k]) {
			op.Max[k] = t
		}
	}
}

func (p *planner) intent() *intent {
	in := &intent{Batch: store.NewID()}
	for _, id := range p.rowIx {
		op := p.rows[id]
		for k, v := range op.Inc {
			if v == 0 {
				delete(op.Inc, k)
			}
		}
		if len(op.Inc) > 0 || len(op.Max) > 0 {
			in.Rows = append(in.Rows, *op)
		}
	}
	for _, id := range p.order {
		in.Contribs = append(in.Contribs, *p.seen[id])
	}
	return in
}

// execute carries a saved batch out; every step may be repeated.
func (e *Engine) execute(ctx context.Context, in *intent) error {
	for i := range in.Rows {
		if err := e.moveRow(ctx, in.Batch, &in.Rows[i]); err != nil {
			return err
		}
	}
	if err := e.saveContribs(ctx, in.Contribs); err != nil {
		return err
	}
	if err := e.markApplied(ctx, in.Inbox); err != nil {
		return err
	}
	_, err := e.Store.Collection(State).Upsert(ctx, StateID(ctx), store.Update{Unset: []string{"intent"}, Set: store.Doc{"appliedAt": e.now()}})
	return err
}

// moveRow adds a row's increments once per batch (the row remembers the
// last batch that moved it), then raises its latest times and derives.
func (e *Engine) moveRow(ctx context.Context, batch string, op *rowOp) error {
	coll := e.Store.Collection(op.Model)
	inc := map[string]any{}
	for k, v := range op.Inc {
		inc[k] = v
	}
	now := e.now()
	u := store.Update{Inc: inc, Set: store.Doc{"lastBatch": batch, "updatedAt": now}}
	notThisBatch := query.Field{Path: "lastBatch", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: batch}}}
	_, err := coll.Update(ctx, query.AllOf(query.ID(op.ID), notThisBatch), u)
	if errors.Is(err, store.ErrNotFound) {
		err = e.insertRow(ctx, coll, op, u, now)
	}
	if err != nil {
		return err
	}
	if err := e.raise(ctx, coll, op); err != nil {
		return err
	}
	return e.derive(ctx, coll, op)
}

// insertRow creates the row unless it exists (then this batch moved it
// already).
func (e *Engine) insertRow(ctx context.Context, coll store.Collection, op *rowOp, u store.Update, now time.Time) error {
	_, err := coll.Get(ctx, op.ID, "_id")
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return err
	}
	u.SetOnInsert = store.Doc{"createdAt": now}
	for k, v := range op.Key {
		u.SetOnInsert[k] = v
	}
	_, err = coll.Upsert(ctx, op.ID, u)
	return err
}

// raise keeps the latest of each time: idempotent by nature.
func (e *Engine) raise(ctx context.Context, coll store.Collection, op *rowOp) error {
	for f, t := range op.Max {
		older := query.Or{Exprs: []query.Expr{
			query.Field{Path: f, Conds: []query.Cond{query.Exists{Want: false}}},
			query.Field{Path: f, Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: t}}},
		}}
		if _, err := coll.Update(ctx, query.AllOf(query.ID(op.ID), older), store.Update{Set: store.Doc{f: t}}); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

func (e *Engine) derive(ctx context.Context, coll store.Collection, op *rowOp) error {
	m := ByName(op.Model)
	if m == nil || m.Derive == nil {
		return nil
	}
	row, err := coll.Get(ctx, op.ID)
	if err != nil {
		return err
	}
	_, err = coll.Update(ctx, query.ID(op.ID), store.Update{Set: m.Derive(row)})
	return err
}

// saveContribs inserts the new contributions in one call and updates
// the others; a batch finished again after a crash finds some inserted
// already and then writes them one by one.
func (e *Engine) saveContribs(ctx context.Context, list []contrib) error {
	var fresh []store.Doc
	for i := range list {
		if list[i].New {
			d := contribDoc(&list[i])
			d["_id"] = list[i].ID
			fresh = append(fresh, d)
			continue
		}
		if err := e.saveContrib(ctx, &list[i]); err != nil {
			return err
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	err := e.Store.Collection(Contribs).InsertMany(ctx, fresh)
	if !store.IsDuplicate(err) {
		return err
	}
	for i := range list {
		if err := e.saveContrib(ctx, &list[i]); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) saveContrib(ctx context.Context, c *contrib) error {
	_, err := e.Store.Collection(Contribs).Upsert(ctx, c.ID, store.Update{Set: contribDoc(c)})
	return err
}

func contribDoc(c *contrib) store.Doc {
	rows := make([]any, len(c.Rows))
	for i, r := range c.Rows {
		// Counter names may hold dots (hist.b12), which stored field
		// names may not: pairs instead of an object.
		inc := make([]any, 0, len(r.Inc))
		for k, v := range r.Inc {
			inc = append(inc, store.Doc{"f": k, "n": v})
		}
		rows[i] = store.Doc{"id": r.ID, "key": store.Doc(r.Key), "inc": inc}
	}
	return store.Doc{"model": c.Model, "collection": c.Collection, "entity": c.Entity, "version": c.Version.UTC(), "gone": c.Gone, "rows": rows}
}

func contribOf(doc store.Doc) (*contrib, error) {
	c := &contrib{}
	c.ID, _ = doc["_id"].(string)
	c.Model, _ = doc["model"].(string)
	c.Collection, _ = doc["collection"].(string)
	c.Entity, _ = doc["entity"].(string)
	c.Version, _ = doc["version"].(time.Time)
	c.Gone, _ = doc["gone"].(bool)
	list, _ := doc["rows"].([]any)
	for _, x := range list {
		d, _ := x.(store.Doc)
		part := rowPart{Inc: map[string]int64{}}
		part.ID, _ = d["id"].(string)
		part.Key, _ = d["key"].(store.Doc)
		inc, _ := d["inc"].([]any)
		for _, x := range inc {
			pair, _ := x.(store.Doc)
			f, _ := pair["f"].(string)
			part.Inc[f] = asInt(pair["n"])
		}
		c.Rows = append(c.Rows, part)
	}
	return c, nil
}

// entityOf splits an event name into its collection and verb.
func entityOf(name string) (collection, verb string) {
	collection, verb, _ = strings.Cut(name, ".")
	return collection, verb
}

func isObjectID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
