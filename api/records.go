package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/store"
)

// Records runs the generic record operations of declared resources for
// in-process callers (pipeline db steps): the same validation, hooks and
// events as the HTTP routes, on the customer of ctx. Rights are the
// caller's business (a pipeline's db steps are checked against its
// author's rights when it is saved); Records only refuses modules outside
// its allow-list and writes to read-only resources.
type Records struct {
	s       *Server
	modules []string
}

// Records returns record operations on the resources of the given modules.
func (s *Server) Records(modules ...string) *Records { return &Records{s: s, modules: modules} }

// maxRecordBody caps a record written by an in-process caller.
const maxRecordBody = 1 << 20

// Resource finds a resource by plural within the allowed modules; write
// says the caller will write to it.
func (r *Records) Resource(plural string, write bool) (*Resource, error) {
	res := r.s.svc.Registry.ByPlural(plural)
	if res == nil || !slices.Contains(r.modules, res.Module) {
		return nil, NewError(http.StatusUnprocessableEntity, CodeInvalid, "collection", "%q is not a collection pipelines may use (modules %v)", plural, r.modules)
	}
	if write && res.ReadOnly {
		return nil, NewError(http.StatusUnprocessableEntity, CodeInvalid, "collection", "%q is read-only", plural)
	}
	return res, nil
}

func (r *Records) crud(plural string, write bool) (*crud, error) {
	res, err := r.Resource(plural, write)
	if err != nil {
		return nil, err
	}
	return &crud{s: r.s, r: res}, nil
}

func (r *Records) request(ctx context.Context, params map[string]string, body map[string]any) (*Request, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, BadRequest(CodeMalformed, "data", "data is not JSON: %v", err)
	}
	return &Request{
		Ctx: ctx, Method: http.MethodPost, Params: params, Principal: auth.From(ctx),
		body: bytes.NewReader(raw), header: http.Header{"Content-Type": {"application/json"}}, maxBody: maxRecordBody,
	}, nil
}

func payloadDoc(resp *Response, err error) (store.Doc, error) {
	if err != nil {
		return nil, err
	}
	doc, _ := resp.Payload.(store.Doc)
	return doc, nil
}

// Create validates and stores a new record and records its created event.
func (r *Records) Create(ctx context.Context, plural string, data map[string]any) (store.Doc, error) {
	h, err := r.crud(plural, true)
	if err != nil {
		return nil, err
	}
	req, err := r.request(ctx, nil, data)
	if err != nil {
		return nil, err
	}
	return payloadDoc(h.create(req))
}

// Update merges data into the record (a JSON merge patch) and records the
// updated event.
func (r *Records) Update(ctx context.Context, plural, id string, data map[string]any) (store.Doc, error) {
	// As a PATCH body: data passes the same decoding checks as a client's.
	h, req, err := r.onRecord(ctx, plural, id, data)
	if err != nil {
		return nil, err
	}
	return payloadDoc(h.patch(req))
}

// Delete removes the record and records the deleted event.
func (r *Records) Delete(ctx context.Context, plural, id string) (store.Doc, error) {
	h, req, err := r.onRecord(ctx, plural, id, nil)
	if err != nil {
		return nil, err
	}
	return payloadDoc(h.delete(req))
}

// onRecord prepares a write to the record with id, with body as the request's.
func (r *Records) onRecord(ctx context.Context, plural, id string, body map[string]any) (*crud, *Request, error) {
	h, err := r.crud(plural, true)
	if err != nil {
		return nil, nil, err
	}
	if !store.ValidID(id) {
		return nil, nil, BadRequest(CodeBadID, "recordId", "recordId %q is not an ObjectId", id)
	}
	req, err := r.request(ctx, map[string]string{"id": id}, body)
	return h, req, err
}

// Get reads one record as the API presents it.
func (r *Records) Get(ctx context.Context, plural, id string) (store.Doc, error) {
	h, err := r.crud(plural, false)
	if err != nil {
		return nil, err
	}
	if !store.ValidID(id) {
		return nil, BadRequest(CodeBadID, "recordId", "recordId %q is not an ObjectId", id)
	}
	doc, err := h.load(ctx, id)
	if err != nil {
		return nil, err
	}
	return present(h.r, doc, nil), nil
}

// Find lists up to limit records matching filter (declared filterable
// fields only, as in list calls).
func (r *Records) Find(ctx context.Context, plural string, filter map[string]any, limit int) ([]store.Doc, error) {
	h, err := r.crud(plural, false)
	if err != nil {
		return nil, err
	}
	var expr query.Expr
	if filter != nil {
		if expr, err = query.Parse(filter, h.r); err != nil {
			return nil, BadRequest(CodeBadQuery, "filter", "%v", err)
		}
	}
	docs, err := h.coll().Find(ctx, store.FindOptions{Filter: query.AllOf(expr, readFilter(ctx, h.r)), Limit: int64(limit)})
	if err != nil {
		return nil, storeError(err, h.r)
	}
	for i, d := range docs {
		docs[i] = present(h.r, d, nil)
	}
	return docs, nil
}
