package resource

import (
	"context"
	"errors"
	"slices"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Records is the service narrowed to the resources of some modules,
// addressed by plural: what a stored definition (a pipeline's db steps)
// may reach. It refuses other modules and writes to read-only resources;
// rights are checked when the definition is saved, against its author.
type Records struct {
	svc     *Service
	modules []string
}

// Records narrows s to the resources of modules.
func (s *Service) Records(modules ...string) *Records { return &Records{svc: s, modules: modules} }

// Resource finds a resource by plural within the allowed modules; write
// says the caller will write to it.
func (rs *Records) Resource(plural string, write bool) (*Resource, error) {
	r := rs.svc.Registry.ByPlural(plural)
	if r == nil || !slices.Contains(rs.modules, r.Module) {
		return nil, InvalidField("collection", "%q is not a collection pipelines may use (modules %v)", plural, rs.modules)
	}
	if write && r.ReadOnly {
		return nil, InvalidField("collection", "%q is read-only", plural)
	}
	return r, nil
}

// Create validates and stores a new record.
func (rs *Records) Create(ctx context.Context, plural string, data map[string]any) (store.Doc, error) {
	r, err := rs.Resource(plural, true)
	if err != nil {
		return nil, err
	}
	return rs.svc.Create(ctx, r, data)
}

// Update merges data into the record (a JSON merge patch).
func (rs *Records) Update(ctx context.Context, plural, id string, data map[string]any) (store.Doc, error) {
	r, err := rs.Resource(plural, true)
	if err != nil {
		return nil, err
	}
	return rs.svc.Patch(ctx, r, id, data)
}

// Delete removes the record.
func (rs *Records) Delete(ctx context.Context, plural, id string) (store.Doc, error) {
	r, err := rs.Resource(plural, true)
	if err != nil {
		return nil, err
	}
	return rs.svc.Delete(ctx, r, id)
}

// Get reads one record as the API presents it.
func (rs *Records) Get(ctx context.Context, plural, id string) (store.Doc, error) {
	r, err := rs.Resource(plural, false)
	if err != nil {
		return nil, err
	}
	return rs.svc.Get(ctx, r, id)
}

// Find lists up to limit records matching filter (declared filterable
// fields only, as in list calls).
func (rs *Records) Find(ctx context.Context, plural string, filter map[string]any, limit int) ([]store.Doc, error) {
	r, err := rs.Resource(plural, false)
	if err != nil {
		return nil, err
	}
	var expr query.Expr
	if filter != nil {
		if expr, err = query.Parse(filter, r); err != nil {
			return nil, QueryError(err)
		}
	}
	page, err := rs.svc.Find(ctx, r, ListQuery{Filter: expr, Limit: limit, Page: 1})
	if err != nil {
		return nil, err
	}
	return page.Records, nil
}

// QueryError is a filter the query package refused, naming its field.
func QueryError(err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		return Malformed(CodeBadQuery, qe.Field, "%s", qe.Error())
	}
	return Malformed(CodeBadQuery, "filter", "%s", err.Error())
}
