package crm_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"platform/jsonlimit"
)

// deepCustom is a consumer body whose customCRM nests objects to depth
// levels in all (the body itself is level 1; FerretDB cannot store nested
// arrays, so objects).
func deepCustom(depth int) string {
	return `{"email":"deep@example.com","customCRM":` + nestedObjects(depth-1) + `}`
}

func nestedObjects(levels int) string {
	return strings.Repeat(`{"v":`, levels) + "1" + strings.Repeat("}", levels)
}

// TestNonFiniteAndDeepJSONAreRefused: numbers a float64 cannot hold and
// JSON nested deeper than jsonlimit.MaxDepth are refused before any store
// call, naming the field or the position.
func TestNonFiniteAndDeepJSONAreRefused(t *testing.T) {
	f := newFixture(t)
	aConsumer := func(f *fixture) ids { return ids{"id": f.consumer("first_name", "Ada")} }
	aTask := func(f *fixture) ids { return ids{"id": f.task()} }
	nonFinite := func(name, method, path, body, field string, given func(*fixture) ids) scenario {
		return scenario{name: name, given: given, method: method, path: path, body: body, status: 422, codes: []string{"validation.type"}, field: field}
	}
	tooDeep := func(name string, depth int) scenario {
		return scenario{name: name, method: "POST", path: "/crm/consumers", body: deepCustom(depth), status: 400, codes: []string{"request.too_deep"}}
	}
	run(t, f, []scenario{
		nonFinite("1e999 in customCRM", "POST", "/crm/consumers", `{"email":"inf@example.com","customCRM":{"n":1e999}}`, "customCRM.n", nil),
		nonFinite("an integer of 400 digits", "POST", "/crm/consumers", `{"email":"big@example.com","customCRM":{"n":1`+strings.Repeat("0", 400)+`}}`, "customCRM.n", nil),
		nonFinite("-1e999 in an array in customCRM", "POST", "/crm/consumers", `{"email":"inf@example.com","customCRM":{"a":[1,{"b":-1e999}]}}`, "customCRM.a[1].b", nil),
		nonFinite("-1e400 in a PATCH", "PATCH", "/crm/consumers/{id}", `{"customCRM":{"n":-1e400}}`, "customCRM.n", aConsumer),
		nonFinite("1e999 in a PUT", "PUT", "/crm/consumers/{id}", `{"email":"put@example.com","customCRM":{"n":1e999}}`, "customCRM.n", aConsumer),
		nonFinite("1e999 in an action body", "POST", "/crm/tasks/{id}/actions/assign", `{"user":"{user}","n":1e999}`, "n", aTask),

		tooDeep("JSON one level deeper than the limit", jsonlimit.MaxDepth+1),
		tooDeep("JSON 999 levels deep", 999),
		tooDeep("JSON 9,999 levels deep", 9999),
		tooDeep("JSON deeper than Go's own decoder goes", 20000),
		{name: "deep JSON in a PATCH", given: aConsumer, method: "PATCH", path: "/crm/consumers/{id}", body: `{"customCRM":` + nestedObjects(999) + `}`,
			status: 400, codes: []string{"request.too_deep"}},
	})
}

// TestDeepestAcceptedJSONIsStored: a body at exactly the limit is stored
// and read back by both stores.
func TestDeepestAcceptedJSONIsStored(t *testing.T) {
	f := newFixture(t)
	r := f.p.Do("POST", "/crm/consumers", f.admin, deepCustom(jsonlimit.MaxDepth))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	got := f.p.Do("GET", "/crm/consumers/"+r.Payload()["_id"].(string), f.admin, nil)
	require.Equal(t, 200, got.Status, "%s", got.Body)
	assert.Equal(t, r.Payload()["customCRM"], got.Payload()["customCRM"])
}
