package config

import (
	"errors"
	"net/http"

	"platform/api"
	"platform/kernel/resource"
	"platform/modules/config/flags"
)

// Evaluation routes. They answer from the compiled flags cached per
// customer (flags_cache.go), never reading the store on the way, so they
// are not record actions (those load the record first).
const (
	evaluatePath      = "/" + FlagsCollection + "/:id/actions/evaluate"
	evaluateAllPath   = "/" + FlagsCollection + "/actions/evaluate"
	maxBulkFlagsAsked = MaxFlags
)

func (e *flagEngine) routes(r *api.ModuleRouter) {
	r.Handle(http.MethodPost, evaluatePath, RightEvaluate, e.evaluateOne)
	r.Handle(http.MethodPost, evaluateAllPath, RightEvaluate, e.evaluateAll)
}

// evaluateOne answers one flag's decision for the body's context.
func (e *flagEngine) evaluateOne(req *api.Request) (*api.Response, error) {
	ctx, _, err := evaluationBody(req, false)
	if err != nil {
		return nil, err
	}
	c, err := e.compiledFor(req.Ctx)
	if err != nil {
		return nil, err
	}
	f := c.flag(req.Param("id"))
	if f == nil {
		return nil, resource.NotFound("feature flag")
	}
	return &api.Response{Status: http.StatusOK, Payload: f.Evaluate(ctx).Doc()}, nil
}

// evaluateAll answers the decisions of every enabled flag (or of those
// the body's flags names), by flag key.
func (e *flagEngine) evaluateAll(req *api.Request) (*api.Response, error) {
	ctx, only, err := evaluationBody(req, true)
	if err != nil {
		return nil, err
	}
	c, err := e.compiledFor(req.Ctx)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(c.slugs))
	for _, slug := range c.slugs {
		f := c.bySlug[slug]
		if f.Enabled && (only == nil || only[slug]) {
			out = append(out, f.Evaluate(ctx).Doc())
		}
	}
	return &api.Response{Status: http.StatusOK, Payload: out}, nil
}

// evaluationBody reads {context, flags?}: context an object within the
// limits of flags.NewContext, flags (bulk only) a list of flag keys.
func evaluationBody(req *api.Request, bulk bool) (flags.Context, map[string]bool, error) {
	body, err := req.JSON()
	if err != nil {
		return nil, nil, err
	}
	var only map[string]bool
	for k, v := range body {
		switch {
		case k == "context":
		case k == "flags" && bulk:
			if only, err = flagList(v); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, resource.Invalid(resource.FieldError(resource.CodeUnknownField, k, "unknown field %q: the body is {\"context\": {...}}", k))
		}
	}
	raw, ok := body["context"].(map[string]any)
	if !ok && body["context"] != nil {
		return nil, nil, resource.Invalid(resource.FieldError(resource.CodeType, "context", "context must be an object of attributes, such as {\"targetingKey\": \"user-42\", \"country\": \"DE\"}"))
	}
	ctx, err := flags.NewContext(raw)
	var ce *flags.ContextError
	if errors.As(err, &ce) {
		return nil, nil, resource.Invalid(resource.FieldError(resource.CodeInvalid, ce.Path, "%s", ce.Error()))
	}
	return ctx, only, err
}

// flagList reads the bulk body's flags: flag keys, at most MaxFlags.
func flagList(v any) (map[string]bool, error) {
	list, ok := v.([]any)
	if !ok || len(list) > maxBulkFlagsAsked {
		return nil, resource.Invalid(resource.FieldError(resource.CodeType, "flags", "flags must be an array of at most %d flag keys", maxBulkFlagsAsked))
	}
	out := make(map[string]bool, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, resource.Invalid(resource.FieldError(resource.CodeType, "flags", "flags must hold flag keys (strings)"))
		}
		out[s] = true
	}
	return out, nil
}
