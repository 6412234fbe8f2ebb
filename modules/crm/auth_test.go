package crm_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"platform/test/apitest"
	"platform/test/testenv"
)

func TestAuthentication(t *testing.T) {
	f := newFixture(t)
	challenged := func(f *fixture, v ids, r *testenv.Resp) {
		assert.Equal(f.T, `Bearer realm="platform"`, r.Header.Get("WWW-Authenticate"))
	}
	refused := func(name, method, path string, token func(f *fixture) string, header ...string) scenario {
		return scenario{Name: name, Given: func(f *fixture) ids { return ids{"id": f.consumer()} }, Method: method, Path: path,
			Token: token, Header: header, Status: 401, Codes: []string{"auth.token"}, Then: challenged}
	}
	garbage := func(*fixture) string { return "not-a-token" }
	expired := func(f *fixture) string { return f.signedToken(time.Now().Add(-time.Hour), nil) }
	forged := func(f *fixture) string { return f.signedToken(time.Now().Add(time.Hour), otherKey(f.T)) }
	apitest.Run(t, f, []scenario{
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
			Name: "a token built like the refused ones but valid is accepted", Given: func(f *fixture) ids { return ids{"id": f.consumer()} },
			Method: "GET", Path: "/crm/consumers/{id}", Token: func(f *fixture) string { return f.signedToken(time.Now().Add(time.Hour), nil) }, Status: 200,
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
		return scenario{Name: name, Scopes: scopes, Given: given, Method: method, Path: path, Body: body, Status: 403, Codes: []string{"auth.scope"}}
	}
	view := []string{"crm.consumers.view"}
	newConsumer := map[string]any{"email": "rights@example.com"}
	apitest.Run(t, f, []scenario{
		forbidden("view cannot create", view, nil, "POST", "/crm/consumers", newConsumer),
		forbidden("view cannot replace by body", view, aConsumer, "PUT", "/crm/consumers", map[string]any{"_id": "{id}", "email": "x@example.com"}),
		forbidden("view cannot replace", view, aConsumer, "PUT", "/crm/consumers/{id}", map[string]any{"email": "x@example.com"}),
		forbidden("view cannot patch", view, aConsumer, "PATCH", "/crm/consumers/{id}", map[string]any{"first_name": "x"}),
		forbidden("view cannot delete", view, aConsumer, "DELETE", "/crm/consumers/{id}", nil),
		forbidden("create cannot view", []string{"crm.consumers.create"}, aConsumer, "GET", "/crm/consumers/{id}", nil),
		forbidden("create cannot list", []string{"crm.consumers.create"}, nil, "GET", "/crm/consumers", nil),
		{Name: "view reads and is offered no actions", Scopes: view, Given: aConsumer, Method: "GET", Path: "/crm/consumers/{id}", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Empty(f.T, r.Meta()["actions"]) }},
		{Name: "edit is offered update only", Scopes: []string{"crm.consumers.view", "crm.consumers.edit"}, Given: aConsumer,
			Method: "GET", Path: "/crm/consumers/{id}", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, []string{"UPDATE"}, apitest.ActionNames(r))
			}},
		forbidden("anonymize needs crm.consumers.delete, not edit", []string{"crm.consumers.view", "crm.consumers.edit"}, aConsumer,
			"POST", "/crm/consumers/{id}/actions/anonymize", nil),
		{Name: "anonymize with crm.consumers.delete", Scopes: []string{"crm.consumers.delete"}, Given: aConsumer,
			Method: "POST", Path: "/crm/consumers/{id}/actions/anonymize", Status: 200, Events: []string{"consumers.anonymized"}},
		forbidden("merge needs crm.consumers.delete", []string{"crm.consumers.view", "crm.consumers.edit"}, twoConsumers,
			"POST", "/crm/consumers/{id}/actions/merge", map[string]any{"keepId": "{keep}"}),
		forbidden("assign needs crm.tasks.assign, not edit", []string{"crm.tasks.view", "crm.tasks.edit"}, aTask,
			"POST", "/crm/tasks/{id}/actions/assign", map[string]any{"userId": "{user}"}),
		{Name: "assign with crm.tasks.assign alone", Scopes: []string{"crm.tasks.assign"}, Given: aTask,
			Method: "POST", Path: "/crm/tasks/{id}/actions/assign", Body: map[string]any{"userId": "{user}"}, Status: 200, Events: []string{"tasks.assigned"}},
		forbidden("reopen needs crm.tasks.edit", []string{"crm.tasks.view", "crm.tasks.assign"}, doneTask, "POST", "/crm/tasks/{id}/actions/reopen", nil),
		forbidden("the tasks of a consumer need crm.tasks.view", view, aConsumer, "GET", "/crm/consumers/{id}/tasks", nil),
		forbidden("the notes of a consumer need crm.notes.view", view, aConsumer, "GET", "/crm/consumers/{id}/notes", nil),
		forbidden("the mail history needs marketing.maillogs.view", []string{"crm.*"}, aConsumer, "GET", "/crm/consumers/{id}/maillogs", nil),
		forbidden("a sub-resource needs the consumer's view right too", []string{"crm.tasks.view"}, aConsumer, "GET", "/crm/consumers/{id}/tasks", nil),
		forbidden("a note needs the view right of its target", []string{"crm.notes.create"}, aConsumer, "POST", "/crm/notes",
			map[string]any{"body": "x", "targetType": "consumers", "targetId": "{id}"}),
		{Name: "the wildcard crm.* grants every CRM right", Scopes: []string{"crm.*"}, Method: "POST", Path: "/crm/consumers",
			Body: map[string]any{"email": "wild@example.com"}, Status: 201, Events: []string{"consumers.created"}},
		{Name: "the wildcard crm.consumers.* grants the consumer rights", Scopes: []string{"crm.consumers.*"}, Method: "POST", Path: "/crm/consumers",
			Body: map[string]any{"email": "wild2@example.com"}, Status: 201, Events: []string{"consumers.created"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, []string{"UPDATE", "DELETE", "ANONYMIZE", "MERGE"}, apitest.ActionNames(r))
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
	other := func(f *fixture) string { return f.Other }
	given := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "task": f.task("consumer", c, "_status", "done"), "note": f.note("consumers", c),
			"mail": f.mailLog(c, "a@example.com"), "bc": f.otherConsumer()}
	}
	notFound := func(name, method, path string, body any) scenario {
		return scenario{Name: name, Given: given, Token: other, Method: method, Path: path, Body: body, Status: 404, Codes: []string{"resource.not_found"}}
	}
	apitest.Run(t, f, []scenario{
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
		{Name: "lists show only one's own records", Given: given, Token: other, Method: "GET", Path: "/crm/consumers", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Contains(f.T, apitest.ListIDs(r), v["bc"])
				assert.NotContains(f.T, apitest.ListIDs(r), v["c"])
			}},
		{Name: "a filter on another customer's id finds nothing", Given: given, Token: other, Method: "GET", Path: "/crm/tasks?consumer={c}",
			Status: 200, Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Empty(f.T, r.List()) }},
		{Name: "a note cannot point at another customer's consumer", Given: given, Token: other, Method: "POST", Path: "/crm/notes",
			Body: map[string]any{"body": "x", "targetType": "consumers", "targetId": "{c}"}, Status: 422, Codes: []string{"validation.invalid"}, Field: "targetId"},
		{Name: "a task cannot point at another customer's consumer", Given: given, Token: other, Method: "POST", Path: "/crm/tasks",
			Body: map[string]any{"title": "x", "consumer": "{c}"}, Status: 422, Codes: []string{"validation.invalid"}, Field: "consumer"},
		{Name: "a merge cannot keep another customer's consumer", Given: given, Method: "POST", Path: "/crm/consumers/{c}/actions/merge",
			Body: map[string]any{"keepId": "{bc}"}, Status: 422, Codes: []string{"validation.invalid"}, Field: "keepId"},
		{Name: "another customer may use the same e-mail address", Given: func(f *fixture) ids {
			f.create("consumers", map[string]any{"email": "shared@example.com"})
			return ids{}
		}, Token: other, Method: "POST", Path: "/crm/consumers", Body: map[string]any{"email": "shared@example.com"}, Status: 201,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Empty(f.T, f.Recorded, "customer B's event is not customer A's")
			}},
	})
}
