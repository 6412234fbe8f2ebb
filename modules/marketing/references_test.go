package marketing_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/test/apitest"
	"platform/test/testenv"
)

type refFixture struct{ *apitest.Env }

func (f *refFixture) For(t testing.TB) *refFixture { return &refFixture{f.Env.For(t)} }

type refScenario = apitest.Scenario[*refFixture]

func TestReferences(t *testing.T) {
	f := &refFixture{apitest.New(t, apitest.Options{Modules: []string{"marketing"},
		Rights: []string{"marketing.references.*", "crm.consumers.*"}, Collections: []string{"references"}})}
	given := func(f *refFixture) apitest.IDs {
		c := f.Create("/crm/consumers", map[string]any{"email": "ref-" + testenv.Name(f.T) + "@example.com"})
		r := f.Create("/marketing/references", map[string]any{"name": "Case study", "lang": "de", "published": true, "consumer": c,
			"shares": []any{map[string]any{"user": f.P.Admin.ID, "access": "edit"}}})
		return apitest.IDs{"c": c, "r": r}
	}
	copied := func(f *refFixture, v apitest.IDs, r *testenv.Resp) {
		p := r.Payload()
		assert.NotEqual(f.T, v["r"], p["_id"])
		assert.Equal(f.T, "Case study", p["name"])
		assert.Equal(f.T, false, p["published"], "a copy starts unpublished")
		assert.Equal(f.T, v["c"], p["consumer"])
		assert.Equal(f.T, p["_id"], f.Recorded[0].Data["_id"])
	}
	apitest.Run(t, f, []refScenario{
		{Name: "a reference carries the common fields", Given: given, Method: "GET", Path: "/marketing/references/{r}", Status: 200,
			Then: func(f *refFixture, v apitest.IDs, r *testenv.Resp) {
				for _, k := range []string{"_id", "published", "name", "lang", "createdBy", "modifiedBy", "shares", "createdAt", "updatedAt"} {
					assert.Contains(f.T, r.Payload(), k)
				}
				var hrefs []string
				for _, a := range r.Meta()["actions"].([]any) {
					hrefs = append(hrefs, a.(map[string]any)["href"].(string))
				}
				assert.Contains(f.T, hrefs[len(hrefs)-1], "/references/"+v["r"]+"/copy", "COPY is linked in the specification's form")
			}},
		{Name: "creating needs the new right", Method: "POST", Path: "/marketing/references", Scopes: []string{"marketing.references.view", "marketing.references.edit"},
			Body: map[string]any{"name": "x"}, Status: 403},
		{Name: "the consumer must be the customer's", Method: "POST", Path: "/marketing/references",
			Body: map[string]any{"name": "x", "consumer": "0123456789abcdef01234567"}, Status: 422, Field: "consumer"},
		{Name: "a shared user must be the customer's", Method: "POST", Path: "/marketing/references",
			Body: map[string]any{"name": "x", "shares": []any{map[string]any{"user": "0123456789abcdef01234567", "access": "view"}}}, Status: 422, Field: "shares.0.user"},
		{Name: "COPY at the specification's path", Given: given, Method: "POST", Path: "/marketing/references/{r}/copy", Status: 200,
			Events: []string{"references.created"}, Then: copied},
		{Name: "COPY as an action", Given: given, Method: "POST", Path: "/marketing/references/{r}/actions/copy", Status: 200,
			Events: []string{"references.created"}, Then: copied},
		{Name: "copying needs the new right", Given: given, Method: "POST", Path: "/marketing/references/{r}/copy",
			Scopes: []string{"marketing.references.view", "marketing.references.edit"}, Status: 403},
		{Name: "DELETE", Given: given, Method: "DELETE", Path: "/marketing/references/{r}", Status: 200, Events: []string{"references.deleted"}},
		{Name: "projects answer module.inactive", Given: given, Method: "GET", Path: "/marketing/references/{r}/projects", Status: 404,
			Codes: []string{"module.inactive"}},
		{Name: "publications answer module.inactive", Given: given, Method: "GET", Path: "/marketing/references/{r}/publications", Status: 404,
			Codes: []string{"module.inactive"}},
	})
}
