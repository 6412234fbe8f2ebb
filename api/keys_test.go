package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/api"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/test/testenv"
)

// keyed is a test-only module with a resource addressed by a natural key
// (as config's /flags/:slug and hub's /knowledgebases/:slug will be).
func keyed() *api.Module {
	return &api.Module{Name: "keyed", HostLabel: "keyed", Version: "0.0.1", Resources: []*resource.Resource{{
		Plural: "switches", Title: "switch", Key: "slug",
		Fields: []resource.Field{
			{Name: "slug", Type: resource.TString, Required: true, Unique: true, MaxLen: 100, Filter: true},
			{Name: "on", Type: resource.TBool, Default: false},
		},
		Actions: []resource.Action{{Name: "toggle", Title: "toggle the switch", Event: "toggled",
			Run: func(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
				on, _ := call.Record["on"].(bool)
				doc, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), resource.Change{Set: store.Doc{"on": !on}})
				return &resource.ActionResult{Payload: doc}, err
			}}},
	}, {
		Plural: "pages", Title: "page", Key: "slug",
		Fields: []resource.Field{
			{Name: "book", Type: resource.TString, Required: true, MaxLen: 100, Filter: true},
			{Name: "slug", Type: resource.TString, Required: true, UniqueWithin: "book", MaxLen: 100, Filter: true},
		},
	}}}
}

// TestKeysWithinAParentRoutes: a slug unique per book is addressed within
// the book named by ?book=, alone when one book has it, and a 400 naming
// the book field when several do.
func TestKeysWithinAParentRoutes(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	require.NoError(t, p.API.Mount(context.Background(), keyed()))
	p.CheckOpenAPI("keyed")
	tok := p.Token("keyed.*")
	ids := map[string]string{}
	for _, book := range []string{"a", "b"} {
		r := p.Do("POST", "/keyed/pages", tok, map[string]any{"book": book, "slug": "intro"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ids[book] = r.Payload()["_id"].(string)
	}
	r := p.Do("POST", "/keyed/pages", tok, map[string]any{"book": "a", "slug": "intro"})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	assert.Equal(t, []string{"conflict.duplicate"}, r.ErrorCodes())

	r = p.Do("GET", "/keyed/pages/intro?book=b", tok, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, ids["b"], r.Payload()["_id"])
	r = p.Do("PATCH", "/keyed/pages/intro?book=a", tok, map[string]any{"slug": "start"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, ids["a"], r.Payload()["_id"])
	r = p.Do("GET", "/keyed/pages/intro", tok, nil)
	require.Equal(t, http.StatusOK, r.Status, "only book b has it now: %s", r.Body)
	assert.Equal(t, ids["b"], r.Payload()["_id"])

	require.Equal(t, http.StatusCreated, p.Do("POST", "/keyed/pages", tok, map[string]any{"book": "c", "slug": "intro"}).Status)
	r = p.Do("DELETE", "/keyed/pages/intro", tok, nil)
	require.Equal(t, http.StatusBadRequest, r.Status, "two books have it: %s", r.Body)
	assert.Equal(t, []string{"request.id"}, r.ErrorCodes())
	assert.Equal(t, "book", fieldOfFirstError(r))
}

// fieldOfFirstError is the field of an answer's first error entry.
func fieldOfFirstError(r *testenv.Resp) any {
	errs, _ := r.Meta()["errors"].([]any)
	if len(errs) == 0 {
		return nil
	}
	return errs[0].(map[string]any)["field"]
}

// TestNaturalKeyRoutes: every route of the :id form answers by the key,
// an id still works, and the answers match the published OpenAPI document.
func TestNaturalKeyRoutes(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	require.NoError(t, p.API.Mount(context.Background(), keyed()))
	p.CheckOpenAPI("keyed")
	tok := p.Token("keyed.*")

	r := p.Do("POST", "/keyed/switches", tok, map[string]any{"slug": "beta"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.Payload()["_id"].(string)

	cases := []struct {
		method, path string
		body         any
		status       int
		on           any
	}{
		{"GET", "/keyed/switches/beta", nil, 200, false},
		{"GET", "/keyed/switches/" + id, nil, 200, false},
		{"PATCH", "/keyed/switches/beta", map[string]any{"on": true}, 200, true},
		{"POST", "/keyed/switches/beta/actions/toggle", nil, 200, false},
		{"PUT", "/keyed/switches/beta", map[string]any{"slug": "beta", "on": true}, 200, true},
		{"GET", "/keyed/switches/gamma", nil, 404, nil},
	}
	for _, c := range cases {
		r := p.Do(c.method, c.path, tok, c.body)
		require.Equal(t, c.status, r.Status, "%s %s: %s", c.method, c.path, r.Body)
		if c.on != nil {
			assert.Equal(t, id, r.Payload()["_id"], "%s %s", c.method, c.path)
			assert.Equal(t, c.on, r.Payload()["on"], "%s %s", c.method, c.path)
		}
	}
	r = p.Do("POST", "/keyed/switches", tok, map[string]any{"slug": "0123456789abcdef01234567"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "a key that looks like an id: %s", r.Body)
	assert.Equal(t, []string{"validation.format"}, r.ErrorCodes())
	r = p.Do("DELETE", "/keyed/switches/beta", tok, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, http.StatusNotFound, p.Do("GET", "/keyed/switches/"+id, tok, nil).Status)
}
