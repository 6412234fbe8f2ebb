package resource

import (
	"context"
	"log/slog"
	"maps"
	"reflect"
	"time"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/store"
)

// EventRecorder durably records a platform event (DESIGN §4) before the
// write that caused it is acknowledged.
type EventRecorder interface {
	Record(ctx context.Context, name string, data store.Doc) error
}

// WorkflowStarter starts a workflow under a deterministic id. An id that
// already runs or ran is not started again (started=false, no error), so
// an action that hands work to the worker can be retried safely.
type WorkflowStarter interface {
	StartOnce(ctx context.Context, id string, attrs map[string]string, workflow string, input any) (started bool, err error)
}

// Service reads and writes the records of declared resources for every
// caller: validation, hooks, the bookkeeping fields (createdAt/By,
// updatedAt, modifiedBy) and the event of each write. The customer is the
// one of ctx (the store enforces it); the actor is ctx's principal, or the
// platform itself (PlatformActor) when there is none. Route rights are the
// caller's business (package api checks them; a pipeline's steps are
// checked against its author's rights when it is saved).
type Service struct {
	Store    store.Store
	Events   EventRecorder
	Registry *Registry
	Log      *slog.Logger
	// Workflows starts workflows on the worker's task queue; nil in a
	// process without Temporal.
	Workflows WorkflowStarter
	// CountCap is how many matches a filtered list's total counts at most
	// (0: DefaultCountCap; docs/counts.md).
	CountCap int64
}

// Get reads one record, addressed by id or natural key, as the caller
// sees it (write-only fields dropped, virtual ones added, projected to
// fields if any).
func (s *Service) Get(ctx context.Context, r *Resource, ref string, fields ...string) (store.Doc, error) {
	doc, err := s.Load(ctx, r, ref)
	if err != nil {
		return nil, err
	}
	return Present(r, doc, fields), nil
}

// Load reads one stored record the caller may see: Malformed for a ref
// that is neither an id nor a natural key, NotFound for a missing one or
// another customer's.
func (s *Service) Load(ctx context.Context, r *Resource, ref string) (store.Doc, error) {
	where, byID, err := r.refFilter(ctx, ref)
	if err != nil {
		return nil, err
	}
	rf := readFilter(ctx, r)
	coll := r.Collection(s.Store)
	if byID && rf == nil {
		doc, err := coll.Get(ctx, lowerID(ref))
		return doc, storeError(err, r)
	}
	docs, err := coll.Find(ctx, store.FindOptions{Filter: query.AllOf(where, rf), Limit: 2})
	if err == nil && len(docs) == 0 {
		err = store.ErrNotFound
	}
	if err == nil && len(docs) > 1 {
		return nil, r.ambiguousKey(ref) // only a key unique per parent can match twice
	}
	if err != nil {
		return nil, storeError(err, r)
	}
	return docs[0], nil
}

// Create validates body as a client's new record and stores it.
func (s *Service) Create(ctx context.Context, r *Resource, body map[string]any) (store.Doc, error) {
	return s.CreateWith(ctx, r, body, nil)
}

// CreateWith is Create with fields the platform sets itself (read-only to
// clients, such as a Bug task's signature), which skip validation. The
// answer is the record as the caller sees it plus any values shown once.
func (s *Service) CreateWith(ctx context.Context, r *Resource, body map[string]any, platform store.Doc) (store.Doc, error) {
	doc, err := s.validate(r, body, modeCreate)
	if err != nil {
		return nil, err
	}
	for k, v := range platform {
		doc[k] = v
	}
	if err := fieldRights(ctx, r, nil, doc); err != nil {
		return nil, err
	}
	stampCreate(ctx, doc)
	dropNulls(doc)
	w := &Write{New: doc, Service: s}
	if err := s.beforeWrite(ctx, r, w); err != nil {
		return nil, err
	}
	if err := r.Collection(s.Store).Insert(ctx, w.New); err != nil {
		return nil, storeError(err, r)
	}
	if err := s.afterWrite(ctx, r, w.New, nil); err != nil {
		return nil, err
	}
	out := Present(r, w.New, nil)
	if err := s.emitAll(ctx, r, EventCreated, w.Emit, out); err != nil {
		return nil, err
	}
	return withOnce(out, w.Once), nil
}

// Replace swaps every client field of the record (PUT).
func (s *Service) Replace(ctx context.Context, r *Resource, ref string, body map[string]any) (store.Doc, error) {
	return s.update(ctx, r, ref, body, modeReplace)
}

// Patch merges body into the record (a JSON merge patch: null removes).
func (s *Service) Patch(ctx context.Context, r *Resource, ref string, body map[string]any) (store.Doc, error) {
	return s.update(ctx, r, ref, body, modePatch)
}

// update validates body against the stored record and writes only what
// changed, so concurrent updates of different fields do not overwrite
// each other.
func (s *Service) update(ctx context.Context, r *Resource, ref string, body map[string]any, m mode) (store.Doc, error) {
	old, err := s.Load(ctx, r, ref)
	if err != nil {
		return nil, err
	}
	changes, err := s.validate(r, body, m)
	if err != nil {
		return nil, err
	}
	next := merged(r, old, changes, m)
	if err := fieldRights(ctx, r, old, next); err != nil {
		return nil, err
	}
	stampUpdate(ctx, next)
	w := &Write{Old: old, New: next, Service: s}
	if err := s.beforeWrite(ctx, r, w); err != nil {
		return nil, err
	}
	saved, err := r.Collection(s.Store).Update(ctx, query.ID(idOf(old)), diff(old, w.New))
	if err != nil {
		return nil, storeError(err, r)
	}
	if err := s.afterWrite(ctx, r, saved, old); err != nil {
		return nil, err
	}
	out := Present(r, saved, nil)
	if err := s.emitAll(ctx, r, EventUpdated, w.Emit, out); err != nil {
		return nil, err
	}
	return withOnce(out, w.Once), nil
}

// Delete removes the record and answers it as it was.
func (s *Service) Delete(ctx context.Context, r *Resource, ref string) (store.Doc, error) {
	if r.ReadOnly {
		return nil, readOnly(r)
	}
	old, err := s.Load(ctx, r, ref)
	if err != nil {
		return nil, err
	}
	if r.Hooks.BeforeDelete != nil {
		if err := r.Hooks.BeforeDelete(ctx, s, old); err != nil {
			return nil, err
		}
	}
	n, err := r.Collection(s.Store).Delete(ctx, query.ID(idOf(old)))
	if err != nil {
		return nil, storeError(err, r)
	}
	if n == 0 {
		return nil, NotFound(r.Title)
	}
	out := Present(r, old, nil)
	if err := s.emit(ctx, r, EventDeleted, out); err != nil {
		return nil, err
	}
	if r.Hooks.AfterDelete != nil {
		if err := r.Hooks.AfterDelete(ctx, s, old); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Change is a change the platform makes to a record (an action, a hook,
// a workflow): not checked against the client's field rules, but stamped
// with updatedAt and modifiedBy like every write, and announced when
// Event names a verb.
type Change struct {
	Set   store.Doc
	Unset []string
	Inc   map[string]any
	Push  map[string]any
	// Event is the verb of the event to emit (<plural>.<Event>); empty for
	// none (an action's own event is emitted by Act).
	Event string
}

// update is the store update of c, stamped as every write is.
func (c Change) update(ctx context.Context) store.Update {
	set := make(store.Doc, len(c.Set)+2)
	for k, v := range c.Set {
		set[k] = v
	}
	stampUpdate(ctx, set)
	return store.Update{Set: set, Unset: c.Unset, Inc: c.Inc, Push: c.Push}
}

// Apply makes c to the first record of r matching where (a filter beyond
// the id makes the change conditional: NotFound when it does not hold)
// and answers the record as it is afterwards.
func (s *Service) Apply(ctx context.Context, r *Resource, where query.Expr, c Change) (store.Doc, error) {
	doc, err := r.Collection(s.Store).Update(ctx, where, c.update(ctx))
	if err != nil {
		return nil, storeError(err, r)
	}
	out := Present(r, doc, nil)
	if c.Event != "" {
		if err := s.emit(ctx, r, c.Event, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ApplyIfUnchanged makes c to the record read unless a write changed it
// since it was read (its updatedAt moved): that write's own follow-up
// (a render of the new content) does the work instead, and the answer is
// nil, nil.
func (s *Service) ApplyIfUnchanged(ctx context.Context, r *Resource, read store.Doc, c Change) (store.Doc, error) {
	where := query.AllOf(query.ID(idOf(read)), query.Eq("updatedAt", read["updatedAt"]))
	doc, err := s.Apply(ctx, r, where, c)
	if KindOf(err) == KindNotFound {
		return nil, nil
	}
	return doc, err
}

// ApplyAll makes c to every record of r matching where (a bulk change of
// the platform, such as redacting the notes about an anonymized consumer)
// and answers how many changed. It emits no event: the action that
// caused it announces itself.
func (s *Service) ApplyAll(ctx context.Context, r *Resource, where query.Expr, c Change) (int64, error) {
	n, err := r.Collection(s.Store).UpdateMany(ctx, where, c.update(ctx))
	return n, storeError(err, r)
}

// Act runs the action name on the record ref with body, and emits the
// action's event.
func (s *Service) Act(ctx context.Context, r *Resource, ref, name string, body map[string]any) (*ActionResult, error) {
	a := r.Action(name)
	if a == nil {
		return nil, &Error{Kind: KindNotFound, Entries: []ErrorEntry{FieldError(CodeNotFound, "action", "%s has no action %q", r.Plural, name)}}
	}
	doc, err := s.Load(ctx, r, ref)
	if err != nil && !(a.AllowMissing && KindOf(err) == KindNotFound && store.ValidID(ref)) {
		return nil, err
	}
	args, err := s.validateFields(a.Body, body, modeCreate)
	if err != nil {
		return nil, err
	}
	id := lowerID(ref)
	if doc != nil {
		id = idOf(doc)
	}
	res, err := a.Run(ctx, &ActionCall{Resource: r, ID: id, Record: doc, Body: args, Service: s})
	if err != nil {
		return nil, storeError(err, r)
	}
	if a.Event != "" && !res.NoEvent {
		if err := s.emit(ctx, r, a.Event, actionEventData(res)); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func actionEventData(res *ActionResult) store.Doc {
	if res.EventData != nil {
		return res.EventData
	}
	d, _ := res.Payload.(store.Doc)
	return d
}

// validate checks a client's body against r's fields.
func (s *Service) validate(r *Resource, body map[string]any, m mode) (store.Doc, error) {
	if r.ReadOnly {
		return nil, readOnly(r)
	}
	if r.Hooks.Prepare != nil {
		var err error
		if body, err = r.Hooks.Prepare(body); err != nil {
			return nil, err
		}
	}
	doc, err := s.validateFields(r.Fields, body, m)
	if err != nil {
		return nil, err
	}
	return doc, r.checkKey(doc)
}

func (s *Service) validateFields(fields []Field, body map[string]any, m mode) (store.Doc, error) {
	body, err := normalize(body)
	if err != nil {
		return nil, err
	}
	doc, errs := validateBody(fields, body, m)
	if len(errs) > 0 {
		return nil, Invalid(errs...)
	}
	return doc, nil
}

func (s *Service) beforeWrite(ctx context.Context, r *Resource, w *Write) error {
	if err := s.checkLinks(ctx, r, w); err != nil {
		return err
	}
	if r.Hooks.BeforeWrite == nil {
		return nil
	}
	return r.Hooks.BeforeWrite(ctx, w)
}

func (s *Service) afterWrite(ctx context.Context, r *Resource, saved, old store.Doc) error {
	if r.Hooks.AfterWrite == nil {
		return nil
	}
	return r.Hooks.AfterWrite(ctx, s, saved, old)
}

// fieldRights refuses a change of a field that needs a right the caller
// lacks, whatever the route (a principal-less caller is the platform).
func fieldRights(ctx context.Context, r *Resource, old, next store.Doc) error {
	p := auth.From(ctx)
	if p == nil {
		return nil
	}
	for i := range r.Fields {
		f := &r.Fields[i]
		if f.Right == "" || reflect.DeepEqual(old[f.Name], next[f.Name]) || p.Allows(f.Right) {
			continue
		}
		return &Error{Kind: KindForbidden, Entries: []ErrorEntry{FieldError(CodeScope, f.Name,
			"setting or changing %s needs the right %q, which the token's scope does not grant", f.Name, f.Right)}}
	}
	return nil
}

// emitAll emits verb and then the hooks' further verbs.
func (s *Service) emitAll(ctx context.Context, r *Resource, verb string, more []string, data store.Doc) error {
	for _, v := range append([]string{verb}, more...) {
		if err := s.emit(ctx, r, v, data); err != nil {
			return err
		}
	}
	return nil
}

// emit records <plural>.<verb> with the record as its data, less the
// fields declared NotInEvents.
func (s *Service) emit(ctx context.Context, r *Resource, verb string, data store.Doc) error {
	return s.Events.Record(ctx, r.Plural+"."+verb, eventData(r, data))
}

func eventData(r *Resource, data store.Doc) store.Doc {
	var out store.Doc
	for i := range r.Fields {
		if _, ok := data[r.Fields[i].Name]; ok && r.Fields[i].NotInEvents {
			if out == nil {
				out = maps.Clone(data)
			}
			delete(out, r.Fields[i].Name)
		}
	}
	if out == nil {
		return data
	}
	return out
}

func readOnly(r *Resource) error {
	return InvalidField("", "%s records are written by the platform only", r.Title)
}

// now is the time of a write, at the millisecond precision stores keep.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

func stampCreate(ctx context.Context, doc store.Doc) {
	t, actor := now(), Actor(ctx)
	doc["_id"] = store.NewID()
	doc["createdAt"], doc["updatedAt"] = t, t
	doc["createdBy"], doc["modifiedBy"] = actor, actor
}

func stampUpdate(ctx context.Context, doc store.Doc) {
	doc["updatedAt"] = now()
	doc["modifiedBy"] = Actor(ctx)
}

func idOf(doc store.Doc) string { id, _ := doc["_id"].(string); return id }
