package api

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"time"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/store"
)

// crud serves the generic routes of one resource.
type crud struct {
	s *Server
	r *Resource
}

func (h *crud) coll() store.Collection { return h.s.svc.Store.Collection(h.r.Plural) }

func (h *crud) list(req *Request) (*Response, error) {
	lq, err := parseList(h.r, req.Query)
	if err != nil {
		return nil, err
	}
	return h.listWhere(req, h.r, lq, nil)
}

// listWhere lists r's records matching lq plus extra (sub-resources add their key).
func (h *crud) listWhere(req *Request, r *Resource, lq *listQuery, extra query.Expr) (*Response, error) {
	filter := query.AllOf(lq.Filter, extra, readFilter(req.Ctx, r))
	docs, err := h.s.svc.Store.Collection(r.Plural).Find(req.Ctx, store.FindOptions{
		Filter: filter, Sort: orderBy(r.SortFirst, lq.Sort), Skip: int64((lq.Page - 1) * lq.Limit), Limit: int64(lq.Limit + 1),
		Fields: storedFields(r, lq.Fields),
	})
	if err != nil {
		return nil, storeError(err, r)
	}
	hasNext := len(docs) > lq.Limit
	if hasNext {
		docs = docs[:lq.Limit]
	}
	out := make([]store.Doc, len(docs))
	for i, d := range docs {
		out[i] = present(r, d, lq.Fields)
	}
	resp := &Response{Payload: out, Page: lq.Page, Limit: lq.Limit,
		Links: pageLinks(h.s.cfg.ModuleBaseURL(h.s.hostLabel(h.r))+req.pathTail(), req.Query, lq.Page, hasNext)}
	if lq.Count {
		n, err := h.s.svc.Store.Collection(r.Plural).Count(req.Ctx, filter)
		if err != nil {
			return nil, storeError(err, r)
		}
		resp.Total = &n
	}
	return resp, nil
}

func (h *crud) get(req *Request) (*Response, error) {
	doc, err := h.load(req.Ctx, req.Param("id"))
	if err != nil {
		return nil, err
	}
	var fields []string
	if f := req.Query.Get("fields"); f != "" {
		if fields, err = parseFields(h.r, f); err != nil {
			return nil, err
		}
	}
	return h.recordResponse(req, present(h.r, doc, fields), http.StatusOK), nil
}

// load fetches a record the caller may see, answering 400 for a malformed
// id and 404 for a missing one or another customer's.
func (h *crud) load(ctx context.Context, id string) (store.Doc, error) {
	return LoadRecord(ctx, h.s.svc.Store, h.r, id)
}

// LoadRecord fetches a record of r the caller may see: 400 for a malformed
// id, 404 for a missing one or another customer's.
func LoadRecord(ctx context.Context, st store.Store, r *Resource, id string) (store.Doc, error) {
	if !store.ValidID(id) {
		return nil, BadRequest(CodeBadID, "id", "%q is not a valid id (24 hexadecimal characters)", id)
	}
	id = strings.ToLower(id)
	coll := st.Collection(r.Plural)
	var doc store.Doc
	var err error
	if rf := readFilter(ctx, r); rf != nil {
		var docs []store.Doc
		docs, err = coll.Find(ctx, store.FindOptions{Filter: query.AllOf(query.ID(id), rf), Limit: 1})
		if err == nil && len(docs) == 0 {
			err = store.ErrNotFound
		}
		if err == nil {
			doc = docs[0]
		}
	} else {
		doc, err = coll.Get(ctx, id)
	}
	if err != nil {
		return nil, storeError(err, r)
	}
	return doc, nil
}

func (h *crud) create(req *Request) (*Response, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	doc, errs := validateBody(h.r.Fields, body, modeCreate)
	if len(errs) > 0 {
		return nil, Invalid(errs...)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	actor := actorID(req.Principal)
	doc["_id"] = store.NewID()
	doc["createdAt"], doc["updatedAt"] = now, now
	doc["createdBy"], doc["modifiedBy"] = actor, actor
	dropNulls(doc)
	w := &Write{New: doc, Services: h.s.svc}
	if h.r.Hooks.BeforeWrite != nil {
		if err := h.r.Hooks.BeforeWrite(req.Ctx, w); err != nil {
			return nil, err
		}
	}
	if err := h.coll().Insert(req.Ctx, w.New); err != nil {
		return nil, storeError(err, h.r)
	}
	out := present(h.r, w.New, nil)
	if err := h.s.svc.Events.Record(req.Ctx, h.r.Plural+"."+EventCreated, out); err != nil {
		return nil, err
	}
	if len(w.Once) > 0 {
		out = withOnce(out, w.Once)
	}
	return h.recordResponse(req, out, http.StatusCreated), nil
}

// withOnce is a copy of out plus the show-once values (the event keeps out).
func withOnce(out, once store.Doc) store.Doc {
	c := make(store.Doc, len(out)+len(once))
	for k, v := range out {
		c[k] = v
	}
	for k, v := range once {
		c[k] = v
	}
	return c
}

func (h *crud) replaceByBody(req *Request) (*Response, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	id, _ := body["_id"].(string)
	if id == "" {
		return nil, Invalid(FieldError(CodeRequired, "_id", "PUT /%s needs the record's _id in the body", h.r.Plural))
	}
	delete(body, "_id")
	return h.update(req, id, body, modeReplace)
}

func (h *crud) replace(req *Request) (*Response, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	if id, ok := body["_id"]; ok && id != req.Param("id") {
		return nil, Invalid(FieldError(CodeInvalid, "_id", "the body's _id differs from the id in the path"))
	}
	delete(body, "_id")
	return h.update(req, req.Param("id"), body, modeReplace)
}

func (h *crud) patch(req *Request) (*Response, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	delete(body, "_id")
	return h.update(req, req.Param("id"), body, modePatch)
}

// update validates body against the stored record and writes only what
// changed, so concurrent updates of different fields do not overwrite each other.
func (h *crud) update(req *Request, id string, body map[string]any, m mode) (*Response, error) {
	old, err := h.load(req.Ctx, id)
	if err != nil {
		return nil, err
	}
	changes, errs := validateBody(h.r.Fields, body, m)
	if len(errs) > 0 {
		return nil, Invalid(errs...)
	}
	next := merged(h.r, old, changes, m)
	next["updatedAt"] = time.Now().UTC().Truncate(time.Millisecond)
	next["modifiedBy"] = actorID(req.Principal)
	w := &Write{Old: old, New: next, Services: h.s.svc}
	if h.r.Hooks.BeforeWrite != nil {
		if err := h.r.Hooks.BeforeWrite(req.Ctx, w); err != nil {
			return nil, err
		}
	}
	saved, err := h.coll().Update(req.Ctx, query.ID(old["_id"].(string)), diff(old, w.New))
	if err != nil {
		return nil, storeError(err, h.r)
	}
	out := present(h.r, saved, nil)
	if err := h.s.svc.Events.Record(req.Ctx, h.r.Plural+"."+EventUpdated, out); err != nil {
		return nil, err
	}
	return h.recordResponse(req, out, http.StatusOK), nil
}

func (h *crud) delete(req *Request) (*Response, error) {
	old, err := h.load(req.Ctx, req.Param("id"))
	if err != nil {
		return nil, err
	}
	n, err := h.coll().Delete(req.Ctx, query.ID(old["_id"].(string)))
	if err != nil {
		return nil, storeError(err, h.r)
	}
	if n == 0 {
		return nil, NotFound(h.r.Title)
	}
	out := present(h.r, old, nil)
	if err := h.s.svc.Events.Record(req.Ctx, h.r.Plural+"."+EventDeleted, out); err != nil {
		return nil, err
	}
	if h.r.Hooks.AfterDelete != nil {
		if err := h.r.Hooks.AfterDelete(req.Ctx, h.s.svc, old); err != nil {
			return nil, err
		}
	}
	return &Response{Payload: out}, nil
}

func (h *crud) action(req *Request) (*Response, error) {
	a := h.r.Action(req.Param("action"))
	if a == nil {
		return nil, NewError(http.StatusNotFound, CodeNotFound, "action", "%s has no action %q", h.r.Plural, req.Param("action"))
	}
	if right := h.r.ActionRight(a); !req.Principal.Allows(right) {
		return nil, Forbidden(right)
	}
	doc, err := h.load(req.Ctx, req.Param("id"))
	if err != nil && !(a.AllowMissing && errors.Is(err, errNotFound)) {
		return nil, err
	}
	id := strings.ToLower(req.Param("id"))
	raw, err := req.JSON()
	if err != nil {
		return nil, err
	}
	body, errs := validateBody(a.Body, raw, modeCreate)
	if len(errs) > 0 {
		return nil, Invalid(errs...)
	}
	res, err := a.Run(req.Ctx, &ActionCall{Resource: h.r, ID: id, Record: doc, Body: body, Services: h.s.svc})
	if err != nil {
		return nil, storeError(err, h.r)
	}
	if a.Event != "" && !res.NoEvent {
		data := res.EventData
		if data == nil {
			data, _ = res.Payload.(store.Doc)
		}
		if err := h.s.svc.Events.Record(req.Ctx, h.r.Plural+"."+a.Event, data); err != nil {
			return nil, err
		}
	}
	if rec, ok := res.Payload.(store.Doc); ok && rec["_id"] != nil {
		return h.recordResponse(req, rec, http.StatusOK), nil
	}
	return &Response{Payload: res.Payload}, nil
}

func (h *crud) sub(sub *Sub) HandlerFunc {
	return func(req *Request) (*Response, error) {
		if _, err := h.load(req.Ctx, req.Param("id")); err != nil {
			return nil, err
		}
		if sub.Unavailable != nil {
			if err := sub.Unavailable(req.Ctx); err != nil {
				return nil, err
			}
		}
		target := h.s.svc.Registry.Get(sub.Module, sub.Plural)
		if target == nil {
			return nil, NewError(http.StatusNotFound, CodeInactive, "", "the %s module is not active", sub.Module)
		}
		if right := target.Right("view"); !req.Principal.Allows(right) {
			return nil, Forbidden(right)
		}
		lq, err := parseList(target, req.Query)
		if err != nil {
			return nil, err
		}
		return h.listWhere(req, target, lq, query.AllOf(query.Eq(sub.Key, strings.ToLower(req.Param("id"))), sub.Where))
	}
}

// recordResponse adds the self link, relations and permitted actions.
func (h *crud) recordResponse(req *Request, doc store.Doc, status int) *Response {
	id, _ := doc["_id"].(string)
	gw := h.s.cfg.GatewayURL + "/" + h.r.Module + "/" + h.r.Plural + "/" + id
	resp := &Response{Status: status, Payload: doc}
	resp.Links = []Link{{Rel: "self", Href: h.s.cfg.ModuleBaseURL(h.s.hostLabel(h.r)) + "/" + h.r.Plural + "/" + id,
		Method: "GET", Title: h.r.Title, Types: Types}}
	for _, rel := range h.r.Relations {
		href := h.s.cfg.GatewayURL + "/" + rel.Module + "/" + rel.Plural
		if rel.Sub != "" {
			href = gw + "/" + rel.Sub
		}
		resp.Relations = append(resp.Relations, RelationLink{Rel: rel.Rel, Title: rel.Title, Href: href, Method: "GET", Types: Types, Right: rel.Right})
	}
	resp.Actions = h.actionLinks(req.Principal, gw)
	return resp
}

func (h *crud) actionLinks(p *auth.Principal, gw string) []ActionLink {
	var out []ActionLink
	add := func(rel, action, title, href, method, right string) {
		if p.Allows(right) {
			out = append(out, ActionLink{Rel: rel, Action: action, Title: title, Href: href, Method: method, Types: Types})
		}
	}
	if !h.r.ReadOnly {
		add("update", "UPDATE", "update this "+h.r.Title, gw, "PUT", h.r.Right("edit"))
		add("delete", "DELETE", "delete this "+h.r.Title, gw, "DELETE", h.r.Right("delete"))
	}
	for i := range h.r.Actions {
		a := &h.r.Actions[i]
		add("action", strings.ToUpper(a.Name), a.Title, gw+"/actions/"+a.Name, "POST", h.r.ActionRight(a))
	}
	return out
}

func readFilter(ctx context.Context, r *Resource) query.Expr {
	if r.Hooks.ReadFilter == nil {
		return nil
	}
	return r.Hooks.ReadFilter(ctx)
}

// storedFields maps a projection to stored fields: virtual fields need
// whole records, so they disable the store projection.
func storedFields(r *Resource, fields []string) []string {
	for _, f := range fields {
		if fd := r.Field(f); fd != nil && fd.Virtual {
			return nil
		}
	}
	return fields
}

// present turns a stored record into its public form: write-only fields
// dropped, virtual fields added, projection applied.
func present(r *Resource, doc store.Doc, fields []string) store.Doc {
	out := make(store.Doc, len(doc)+1)
	for k, v := range doc {
		if f := r.Field(k); f != nil && f.WriteOnly {
			continue
		}
		out[k] = v
	}
	if r.Hooks.Present != nil {
		r.Hooks.Present(out)
	}
	if len(fields) == 0 {
		return out
	}
	proj := store.Doc{"_id": out["_id"]}
	for _, f := range fields {
		if v, ok := out[f]; ok {
			proj[f] = v
		}
	}
	return proj
}

// merged applies validated changes to the old record: PUT replaces every
// client field, PATCH only the given ones (null removes). A PUT keeps
// write-only fields it does not name: a client cannot read them back to
// send them again (PATCH with null removes one).
func merged(r *Resource, old, changes store.Doc, m mode) store.Doc {
	next := store.Doc{}
	for k, v := range old {
		f := r.Field(k)
		if m == modePatch || f == nil || f.ReadOnly || f.Virtual || f.WriteOnly {
			next[k] = v
		}
	}
	for k, v := range changes {
		if v == nil {
			delete(next, k)
		} else {
			next[k] = v
		}
	}
	return next
}

// diff is the update turning old into next.
func diff(old, next store.Doc) store.Update {
	u := store.Update{Set: store.Doc{}}
	for k, v := range next {
		if k == "_id" {
			continue
		}
		if ov, ok := old[k]; !ok || !reflect.DeepEqual(ov, v) {
			u.Set[k] = v
		}
	}
	for k := range old {
		if _, ok := next[k]; !ok {
			u.Unset = append(u.Unset, k)
		}
	}
	return u
}

func dropNulls(d store.Doc) {
	for k, v := range d {
		if v == nil {
			delete(d, k)
		}
	}
}

// actorID is who made a change: the user, or the app for service tokens.
func actorID(p *auth.Principal) string {
	if p == nil {
		return ""
	}
	if p.User != "" {
		return p.User
	}
	return p.ClientID
}

// storeError maps store failures to answers.
func storeError(err error, r *Resource) error {
	var dup *store.DuplicateError
	switch {
	case errors.As(err, &dup):
		field := strings.Join(dup.Fields, ",")
		return NewError(http.StatusConflict, CodeDuplicate, field, "another %s already has this %s", r.Title, field).WithCause(err)
	case errors.Is(err, store.ErrNotFound):
		return NotFound(r.Title).WithCause(errNotFound)
	case errors.Is(err, store.ErrUnavailable):
		return NewError(http.StatusServiceUnavailable, CodeUnavailable, "", "the store is unavailable").WithCause(err)
	}
	return err
}

// errNotFound marks 404s that came from a missing record.
var errNotFound = errors.New("record not found")
