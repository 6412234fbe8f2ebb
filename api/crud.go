package api

import (
	"context"
	"net/http"
	"strings"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// crud serves the generic routes of one resource: it reads the request,
// calls the record service and renders its answer.
type crud struct {
	s *Server
	r *resource.Resource
}

func (h *crud) svc() *resource.Service { return h.s.svc }

// refCtx is the context in which the route's :id is looked up: for a key
// unique per parent, ?<parent field>= names the parent to look in.
func (h *crud) refCtx(req *Request) context.Context {
	if h.r.Key == "" {
		return req.Ctx
	}
	within := h.r.Field(h.r.Key).UniqueWithin
	if parent := req.Query.Get(within); within != "" && parent != "" {
		return resource.InParent(req.Ctx, h.r, parent)
	}
	return req.Ctx
}

func (h *crud) list(req *Request) (*Response, error) {
	if err := exportAllowed(req, h.r); err != nil {
		return nil, err
	}
	lq, err := parseList(h.r, req.Query)
	if err != nil {
		return nil, err
	}
	return h.listOf(req, h.r, lq)
}

// listOf answers a page of r's records.
func (h *crud) listOf(req *Request, r *resource.Resource, lq *resource.ListQuery) (*Response, error) {
	page, err := h.svc().Find(req.Ctx, r, *lq)
	if err != nil {
		return nil, err
	}
	return &Response{Payload: page.Records, Page: lq.Page, Limit: lq.Limit, Total: page.Total, TotalRelation: page.TotalRelation,
		Links: pageLinks(h.s.cfg.ModuleBaseURL(h.s.hostLabel(h.r))+req.pathTail(), req.Query, lq.Page, page.HasNext)}, nil
}

func (h *crud) get(req *Request) (*Response, error) {
	var fields []string
	if f := req.Query.Get("fields"); f != "" {
		var err error
		if fields, err = parseFields(h.r, f); err != nil {
			return nil, err
		}
	}
	doc, err := h.svc().Get(h.refCtx(req), h.r, req.Param("id"), fields...)
	if err != nil {
		return nil, err
	}
	return h.recordResponse(req, doc, http.StatusOK), nil
}

func (h *crud) create(req *Request) (*Response, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	doc, err := h.svc().Create(req.Ctx, h.r, body)
	if err != nil {
		return nil, err
	}
	return h.recordResponse(req, doc, http.StatusCreated), nil
}

// replaceByBody is PUT /{plural} with the record's _id in the body, as the
// specification shows.
func (h *crud) replaceByBody(req *Request) (*Response, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	id, _ := body["_id"].(string)
	if id == "" {
		return nil, resource.Invalid(resource.FieldError(resource.CodeRequired, "_id", "PUT /%s needs the record's _id in the body", h.r.Plural))
	}
	delete(body, "_id")
	doc, err := h.svc().Replace(req.Ctx, h.r, id, body)
	return h.written(req, doc, err)
}

func (h *crud) replace(req *Request) (*Response, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	if id, ok := body["_id"]; ok && id != req.Param("id") {
		return nil, resource.InvalidField("_id", "the body's _id differs from the id in the path")
	}
	delete(body, "_id")
	doc, err := h.svc().Replace(h.refCtx(req), h.r, req.Param("id"), body)
	return h.written(req, doc, err)
}

func (h *crud) patch(req *Request) (*Response, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	delete(body, "_id")
	doc, err := h.svc().Patch(h.refCtx(req), h.r, req.Param("id"), body)
	return h.written(req, doc, err)
}

func (h *crud) written(req *Request, doc store.Doc, err error) (*Response, error) {
	if err != nil {
		return nil, err
	}
	return h.recordResponse(req, doc, http.StatusOK), nil
}

func (h *crud) delete(req *Request) (*Response, error) {
	doc, err := h.svc().Delete(h.refCtx(req), h.r, req.Param("id"))
	if err != nil {
		return nil, err
	}
	return &Response{Payload: doc}, nil
}

func (h *crud) action(req *Request, name string) (*Response, error) {
	a := h.r.Action(name)
	if a == nil {
		return nil, NewError(http.StatusNotFound, resource.CodeNotFound, "action", "%s has no action %q", h.r.Plural, name)
	}
	if right := h.r.ActionRight(a); !req.Principal.Allows(right) {
		return nil, Forbidden(right)
	}
	body, err := req.JSON()
	if err != nil {
		return nil, err
	}
	res, err := h.svc().Act(h.refCtx(req), h.r, req.Param("id"), a.Name, body)
	if err != nil {
		return nil, err
	}
	status := http.StatusOK
	if a.Accepted {
		status = http.StatusAccepted
	}
	if rec, ok := res.Payload.(store.Doc); ok && rec["_id"] != nil {
		return h.recordResponse(req, rec, status), nil
	}
	return &Response{Status: status, Payload: res.Payload}, nil
}

// sub lists the records related to one record (GET /{plural}/:id/<rel>).
func (h *crud) sub(rel *resource.Relation) HandlerFunc {
	return func(req *Request) (*Response, error) {
		parent, err := h.svc().Load(h.refCtx(req), h.r, req.Param("id"))
		if err != nil {
			return nil, err
		}
		if rel.Unavailable != nil {
			if err := rel.Unavailable(req.Ctx); err != nil {
				return nil, err
			}
		}
		target := h.svc().Registry.Get(rel.TargetModule(), rel.TargetPlural())
		if target == nil {
			return nil, resource.Inactive("the %s module is not active", rel.TargetModule())
		}
		if right := target.Right("view"); !req.Principal.Allows(right) {
			return nil, Forbidden(right)
		}
		if err := exportAllowed(req, target); err != nil {
			return nil, err
		}
		lq, err := parseList(target, req.Query)
		if err != nil {
			return nil, err
		}
		parentID, _ := parent["_id"].(string)
		lq.Where = query.AllOf(query.Eq(rel.Key, parentID), rel.Where)
		return h.listOf(req, target, lq)
	}
}

// exportAllowed refuses a CSV or YAML list of a resource that declares an
// export right the caller lacks (the rule of DESIGN's formats for
// resources such as mail logs and coupons: a bulk copy is an export).
func exportAllowed(req *Request, r *resource.Resource) error {
	if !r.Export || req.format == formatJSON {
		return nil
	}
	if right := r.Right("export"); !req.Principal.Allows(right) {
		return NewError(http.StatusForbidden, resource.CodeScope, "format",
			"a %s list of %s is an export and needs the right %q; JSON lists need only %q", req.format, r.Plural, right, r.Right("view"))
	}
	return nil
}

// recordResponse adds the self link, relations and permitted actions.
func (h *crud) recordResponse(req *Request, doc store.Doc, status int) *Response {
	id, _ := doc["_id"].(string)
	gw := h.s.cfg.GatewayURL + "/" + h.r.Module + "/" + h.r.Plural + "/" + id
	resp := &Response{Status: status, Payload: doc}
	resp.Links = []Link{{Rel: "self", Href: h.s.cfg.ModuleBaseURL(h.s.hostLabel(h.r)) + "/" + h.r.Plural + "/" + id,
		Method: "GET", Title: h.r.Title, Types: Types}}
	for i := range h.r.Relations {
		if rel := &h.r.Relations[i]; rel.Field == "" || doc[rel.Field] != nil {
			resp.Relations = append(resp.Relations, h.relationLink(rel, doc, gw))
		}
	}
	resp.Actions = h.actionLinks(req.Principal, gw)
	return resp
}

// relationLink points at the sub-resource list (Key), at the one related
// record (Field; a record without one lists no such relation), or at the
// related collection.
func (h *crud) relationLink(rel *resource.Relation, doc store.Doc, gw string) RelationLink {
	href := h.s.cfg.GatewayURL + "/" + rel.Target
	switch {
	case rel.Key != "":
		href = gw + "/" + rel.Rel
	case rel.Field != "":
		if id, ok := doc[rel.Field].(string); ok && id != "" {
			href += "/" + id
		}
	}
	return RelationLink{Rel: rel.Rel, Title: rel.Title, Href: href, Method: "GET", Types: Types, Right: h.svc().Registry.RelationRight(rel)}
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
		href := gw + "/actions/" + a.Name
		if a.Short {
			href = gw + "/" + a.Name // the specification's form (references' copy)
		}
		add("action", strings.ToUpper(a.Name), a.Title, href, "POST", h.r.ActionRight(a))
	}
	return out
}
