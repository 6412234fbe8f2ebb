package crm_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"platform/test/testenv"
)

func TestAuthentication(t *testing.T) {
	f := newFixture(t)
	challenged := func(f *fixture, v ids, r *testenv.Resp) {
		assert.Equal(f.t, `Bearer realm="platform"`, r.Header.Get("WWW-Authenticate"))
	}
	refused := func(name, method, path string, token func(f *fixture) string, header ...string) scenario {
		return scenario{name: name, given: func(f *fixture) ids { return ids{"id": f.consumer()} }, method: method, path: path,
			token: token, header: header, status: 401, codes: []string{"auth.token"}, then: challenged}
	}
	garbage := func(*fixture) string { return "not-a-token" }
	expired := func(f *fixture) string { return f.signedToken(time.Now().Add(-time.Hour), nil) }
	forged := func(f *fixture) string { return f.signedToken(time.Now().Add(time.Hour), otherKey(f.t)) }
	run(t, f, []scenario{
		refused("a list without a token", "GET", "/crm/consumers", none),
		refused("a record without a token", "GET", "/crm/consumers/{id}", none),
		refused("a create without a token", "POST", "/crm/tasks", none),
		refused("an action without a token", "POST", "/crm/consumers/{id}/actions/anonymize", none),
		refused("a sub-resource without a token", "GET", "/crm/consumers/{id}/tasks", none),
		refused("another scheme than Bearer", "GET", "/crm/consumers", none, "Authorization", "Basic YWRtaW46cHc="),
		refused("an empty bearer token", "GET", "/crm/consumers", none, "Authorization", "Bearer "),
		refused("a garbage token", "GET", "/crm/consumers", garbage),
		refused("an expired token", "GET", "/crm/consumers/{id}", expired),
		refused("a token signed with another key", "GET", "/crm/consumers/{id}", forged),
		refused("a write with an expired token", "DELETE", "/crm/consumers/{id}", expired),
		refused("the mail logs without a token", "GET", "/marketing/maillogs", none),
		{
			// The control for the two rows above: the same claims, in date
			// and signed with the platform's key, are accepted.
			name: "a token built like the refused ones but valid is accepted", given: func(f *fixture) ids { return ids{"id": f.consumer()} },
			method: "GET", path: "/crm/consumers/{id}", token: func(f *fixture) string { return f.signedToken(time.Now().Add(time.Hour), nil) }, status: 200,
		},
	})
}

func TestRights(t *testing.T) {
	f := newFixture(t)
	aConsumer := func(f *fixture) ids { return ids{"id": f.consumer()} }
	aTask := func(f *fixture) ids { return ids{"id": f.task()} }
	doneTask := func(f *fixture) ids { return ids{"id": f.task("_status", "done")} }
	twoConsumers := func(f *fixture) ids { return ids{"id": f.consumer(), "keep": f.consumer()} }
	forbidden := func(name string, scopes []string, given func(*fixture) ids, method, path string, body any) scenario {
		return scenario{name: name, scopes: scopes, given: given, method: method, path: path, body: body, status: 403, codes: []string{"auth.scope"}}
	}
	view := []string{"crm.consumers.view"}
	newConsumer := map[string]any{"email": "rights@example.com"}
	run(t, f, []scenario{
		forbidden("view cannot create", view, nil, "POST", "/crm/consumers", newConsumer),
		forbidden("view cannot replace by body", view, aConsumer, "PUT", "/crm/consumers", map[string]any{"_id": "{id}", "email": "x@example.com"}),
		forbidden("view cannot replace", view, aConsumer, "PUT", "/crm/consumers/{id}", map[string]any{"email": "x@example.com"}),
		forbidden("view cannot patch", view, aConsumer, "PATCH", "/crm/consumers/{id}", map[string]any{"first_name": "x"}),
		forbidden("view cannot delete", view, aConsumer, "DELETE", "/crm/consumers/{id}", nil),
		forbidden("create cannot view", []string{"crm.consumers.create"}, aConsumer, "GET", "/crm/consumers/{id}", nil),
		forbidden("create cannot list", []string{"crm.consumers.create"}, nil, "GET", "/crm/consumers", nil),
		{name: "view reads and is offered no actions", scopes: view, given: aConsumer, method: "GET", path: "/crm/consumers/{id}", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Empty(f.t, r.Meta()["actions"]) }},
		{name: "edit is offered update only", scopes: []string{"crm.consumers.view", "crm.consumers.edit"}, given: aConsumer,
			method: "GET", path: "/crm/consumers/{id}", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, []string{"UPDATE"}, actionNames(r)) }},
		forbidden("anonymize needs crm.consumers.delete, not edit", []string{"crm.consumers.view", "crm.consumers.edit"}, aConsumer,
			"POST", "/crm/consumers/{id}/actions/anonymize", nil),
		{name: "anonymize with crm.consumers.delete", scopes: []string{"crm.consumers.delete"}, given: aConsumer,
			method: "POST", path: "/crm/consumers/{id}/actions/anonymize", status: 200, events: []string{"consumers.anonymized"}},
		forbidden("merge needs crm.consumers.delete", []string{"crm.consumers.view", "crm.consumers.edit"}, twoConsumers,
			"POST", "/crm/consumers/{id}/actions/merge", map[string]any{"keepId": "{keep}"}),
		forbidden("assign needs crm.tasks.assign, not edit", []string{"crm.tasks.view", "crm.tasks.edit"}, aTask,
			"POST", "/crm/tasks/{id}/actions/assign", map[string]any{"userId": "{user}"}),
		{name: "assign with crm.tasks.assign alone", scopes: []string{"crm.tasks.assign"}, given: aTask,
			method: "POST", path: "/crm/tasks/{id}/actions/assign", body: map[string]any{"userId": "{user}"}, status: 200, events: []string{"tasks.assigned"}},
		forbidden("reopen needs crm.tasks.edit", []string{"crm.tasks.view", "crm.tasks.assign"}, doneTask, "POST", "/crm/tasks/{id}/actions/reopen", nil),
		forbidden("the tasks of a consumer need crm.tasks.view", view, aConsumer, "GET", "/crm/consumers/{id}/tasks", nil),
		forbidden("the notes of a consumer need crm.notes.view", view, aConsumer, "GET", "/crm/consumers/{id}/notes", nil),
		forbidden("the mail history needs marketing.maillogs.view", []string{"crm.*"}, aConsumer, "GET", "/crm/consumers/{id}/maillogs", nil),
		forbidden("a sub-resource needs the consumer's view right too", []string{"crm.tasks.view"}, aConsumer, "GET", "/crm/consumers/{id}/tasks", nil),
		forbidden("a note needs the view right of its target", []string{"crm.notes.create"}, aConsumer, "POST", "/crm/notes",
			map[string]any{"body": "x", "targetType": "consumers", "targetId": "{id}"}),
		{name: "the wildcard crm.* grants every CRM right", scopes: []string{"crm.*"}, method: "POST", path: "/crm/consumers",
			body: map[string]any{"email": "wild@example.com"}, status: 201, events: []string{"consumers.created"}},
		{name: "the wildcard crm.consumers.* grants the consumer rights", scopes: []string{"crm.consumers.*"}, method: "POST", path: "/crm/consumers",
			body: map[string]any{"email": "wild2@example.com"}, status: 201, events: []string{"consumers.created"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, []string{"UPDATE", "DELETE", "ANONYMIZE", "MERGE"}, actionNames(r))
			}},
		forbidden("crm.consumers.* grants no task right", []string{"crm.consumers.*"}, nil, "POST", "/crm/tasks", map[string]any{"title": "x"}),
		forbidden("a right of another module grants nothing here", []string{"marketing.*"}, nil, "GET", "/crm/consumers", nil),
		forbidden("a right named in the singular grants nothing", []string{"crm.consumer.*"}, nil, "GET", "/crm/consumers", nil),
		forbidden("a scope without its verb grants nothing", []string{"crm.consumers"}, nil, "GET", "/crm/consumers", nil),
		forbidden("a scope that only shares a prefix grants nothing", []string{"crm.consumers.viewer"}, nil, "GET", "/crm/consumers", nil),
		forbidden("a token without scopes can do nothing", []string{}, nil, "GET", "/crm/tasks", nil),
	})
}

// TestOtherCustomersRecords: customer B's token finds none of customer A's
// records, by any route: 404, never 403, and nothing of A changes.
func TestOtherCustomersRecords(t *testing.T) {
	f := newFixture(t)
	other := func(f *fixture) string { return f.other }
	given := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "task": f.task("consumer", c, "_status", "done"), "note": f.note("consumers", c),
			"mail": f.mailLog(c, "a@example.com"), "bc": f.otherConsumer()}
	}
	notFound := func(name, method, path string, body any) scenario {
		return scenario{name: name, given: given, token: other, method: method, path: path, body: body, status: 404, codes: []string{"resource.not_found"}}
	}
	run(t, f, []scenario{
		notFound("GET a consumer", "GET", "/crm/consumers/{c}", nil),
		notFound("PUT a consumer by body", "PUT", "/crm/consumers", map[string]any{"_id": "{c}", "email": "b@example.com"}),
		notFound("PUT a consumer", "PUT", "/crm/consumers/{c}", map[string]any{"email": "b@example.com"}),
		notFound("PATCH a consumer", "PATCH", "/crm/consumers/{c}", map[string]any{"first_name": "B"}),
		notFound("DELETE a consumer", "DELETE", "/crm/consumers/{c}", nil),
		notFound("anonymize a consumer", "POST", "/crm/consumers/{c}/actions/anonymize", nil),
		notFound("merge a consumer into one's own", "POST", "/crm/consumers/{c}/actions/merge", map[string]any{"keepId": "{bc}"}),
		notFound("the tasks of a consumer", "GET", "/crm/consumers/{c}/tasks", nil),
		notFound("the notes of a consumer", "GET", "/crm/consumers/{c}/notes", nil),
		notFound("the mail history of a consumer", "GET", "/crm/consumers/{c}/maillogs", nil),
		notFound("the orders of a consumer", "GET", "/crm/consumers/{c}/orders", nil),
		notFound("GET a task", "GET", "/crm/tasks/{task}", nil),
		notFound("PATCH a task", "PATCH", "/crm/tasks/{task}", map[string]any{"title": "B"}),
		notFound("DELETE a task", "DELETE", "/crm/tasks/{task}", nil),
		notFound("assign a task", "POST", "/crm/tasks/{task}/actions/assign", map[string]any{"userId": "{user}"}),
		notFound("reopen a task", "POST", "/crm/tasks/{task}/actions/reopen", nil),
		notFound("GET a note", "GET", "/crm/notes/{note}", nil),
		notFound("PUT a note", "PUT", "/crm/notes/{note}", map[string]any{"body": "B", "targetType": "consumers", "targetId": "{bc}"}),
		notFound("DELETE a note", "DELETE", "/crm/notes/{note}", nil),
		notFound("GET a mail log", "GET", "/marketing/maillogs/{mail}", nil),
		{name: "lists show only one's own records", given: given, token: other, method: "GET", path: "/crm/consumers", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Contains(f.t, listIDs(r), v["bc"])
				assert.NotContains(f.t, listIDs(r), v["c"])
			}},
		{name: "a filter on another customer's id finds nothing", given: given, token: other, method: "GET", path: "/crm/tasks?consumer={c}",
			status: 200, then: func(f *fixture, v ids, r *testenv.Resp) { assert.Empty(f.t, r.List()) }},
		{name: "a note cannot point at another customer's consumer", given: given, token: other, method: "POST", path: "/crm/notes",
			body: map[string]any{"body": "x", "targetType": "consumers", "targetId": "{c}"}, status: 422, codes: []string{"validation.invalid"}, field: "targetId"},
		{name: "a task cannot point at another customer's consumer", given: given, token: other, method: "POST", path: "/crm/tasks",
			body: map[string]any{"title": "x", "consumer": "{c}"}, status: 422, codes: []string{"validation.invalid"}, field: "consumer"},
		{name: "a merge cannot keep another customer's consumer", given: given, method: "POST", path: "/crm/consumers/{c}/actions/merge",
			body: map[string]any{"keepId": "{bc}"}, status: 422, codes: []string{"validation.invalid"}, field: "keepId"},
		{name: "another customer may use the same e-mail address", given: func(f *fixture) ids {
			f.create("consumers", map[string]any{"email": "shared@example.com"})
			return ids{}
		}, token: other, method: "POST", path: "/crm/consumers", body: map[string]any{"email": "shared@example.com"}, status: 201,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Empty(f.t, f.recorded, "customer B's event is not customer A's")
			}},
	})
}
