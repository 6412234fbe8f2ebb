package crm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/apitest"
	"platform/test/testenv"
)

// TestAssigneeNeedsTheAssignRight: assignedTo is set or changed only with
// crm.tasks.assign, whatever the route, names a user of the customer, and
// announces the assignment as the assign action does.
func TestAssigneeNeedsTheAssignRight(t *testing.T) {
	f := newFixture(t)
	aTask := func(f *fixture) ids { return ids{"id": f.task()} }
	assigned := func(f *fixture) ids { return ids{"id": f.task("assignedTo", f.P.Admin.ID)} }
	editor := []string{"crm.tasks.view", "crm.tasks.create", "crm.tasks.edit"}
	assigner := append(editor, "crm.tasks.assign")
	forbidden := func(name, method, path string, given func(*fixture) ids, body map[string]any) scenario {
		return scenario{Name: name, Scopes: editor, Given: given, Method: method, Path: path, Body: body,
			Status: 403, Codes: []string{"auth.scope"}, Field: "assignedTo"}
	}
	apitest.Run(t, f, []scenario{
		forbidden("create cannot assign", "POST", "/crm/tasks", nil, map[string]any{"title": "t", "assignedTo": "{user}"}),
		forbidden("patch cannot assign", "PATCH", "/crm/tasks/{id}", aTask, map[string]any{"assignedTo": "{user}"}),
		forbidden("put cannot assign", "PUT", "/crm/tasks/{id}", aTask, map[string]any{"title": "t", "assignedTo": "{user}"}),
		forbidden("put by body cannot assign", "PUT", "/crm/tasks", aTask, map[string]any{"_id": "{id}", "title": "t", "assignedTo": "{user}"}),
		forbidden("patch cannot unassign", "PATCH", "/crm/tasks/{id}", assigned, map[string]any{"assignedTo": nil}),
		{Name: "editing other fields keeps the assignee without the right", Scopes: editor, Given: assigned,
			Method: "PATCH", Path: "/crm/tasks/{id}", Body: map[string]any{"title": "renamed"}, Status: 200, Events: []string{"tasks.updated"}},
		{Name: "a put naming the same assignee needs no right", Scopes: editor, Given: assigned,
			Method: "PUT", Path: "/crm/tasks/{id}", Body: map[string]any{"title": "t", "assignedTo": "{user}"}, Status: 200, Events: []string{"tasks.updated"}},
		{Name: "create with the right assigns and announces it", Scopes: assigner, Method: "POST", Path: "/crm/tasks",
			Body: map[string]any{"title": "t", "assignedTo": "{user}"}, Status: 201, Events: []string{"tasks.created", "tasks.assigned"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, f.P.Admin.ID, f.Recorded[1].Data["assignedTo"])
			}},
		{Name: "patch with the right assigns and announces it", Scopes: assigner, Given: aTask, Method: "PATCH", Path: "/crm/tasks/{id}",
			Body: map[string]any{"assignedTo": "{user}"}, Status: 200, Events: []string{"tasks.updated", "tasks.assigned"}},
		{Name: "the assignee must be a user of the customer", Scopes: assigner, Given: aTask, Method: "PATCH", Path: "/crm/tasks/{id}",
			Body: map[string]any{"assignedTo": "0123456789abcdef01234567"}, Status: 422, Codes: []string{"validation.invalid"}, Field: "assignedTo"},
	})
}

// TestActionWritesAreStamped: an action's write moves updatedAt and names
// who made it in modifiedBy, as every write does.
func TestActionWritesAreStamped(t *testing.T) {
	f := newFixture(t)
	p := f.P
	id := f.task()
	before := f.Stored("tasks", id)
	second, _, err := p.Identity.EnsureUser(p.Ctx(), "second@example.com", "Second", strings.Repeat("pw", 8), nil)
	require.NoError(t, err)
	time.Sleep(5 * time.Millisecond) // updatedAt has millisecond precision
	r := p.Do("POST", "/crm/tasks/"+id+"/actions/assign", p.TokenFor(p.Customer.ID, second.ID, "crm.*"), map[string]any{"userId": second.ID})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	after := f.Stored("tasks", id)
	assert.Equal(t, second.ID, after["modifiedBy"], "the assigner changed it")
	assert.Equal(t, before["createdBy"], after["createdBy"])
	assert.True(t, after["updatedAt"].(time.Time).After(before["updatedAt"].(time.Time)), "updatedAt moves")
	assert.Equal(t, second.ID, r.Payload()["modifiedBy"])
}

// TestActionWritesStampAndAnnounce: every write an action or a hook makes
// (reopen, the lead moving to active when its task is done, anonymize)
// moves updatedAt, names who made it in modifiedBy, and emits its event.
// The call is made by a colleague, so modifiedBy cannot still name the
// admin who made the records.
func TestActionWritesStampAndAnnounce(t *testing.T) {
	f := newFixture(t)
	colleague := func(f *fixture) string { _, tok := f.Colleague(); return tok }
	stampedBy := func(coll, key string) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) {
			id, _ := f.Colleague()
			f.CheckStamped(coll, v[key], id)
		}
	}
	apitest.Run(t, f, []scenario{
		{Name: "reopen", Token: colleague, Method: "POST", Path: "/crm/tasks/{task}/actions/reopen", Status: 200,
			Given: func(f *fixture) ids {
				id := f.task()
				require.Equal(f.T, 200, f.P.Do("PATCH", "/crm/tasks/"+id, f.Admin, map[string]any{"_status": "done"}).Status)
				return ids{"task": id}
			},
			Events: []string{"tasks.reopened"}, Then: func(f *fixture, v ids, r *testenv.Resp) {
				stampedBy("tasks", "task")(f, v, r)
				id, _ := f.Colleague()
				assert.Equal(f.T, id, f.Recorded[0].Data["modifiedBy"], "the event shows the record as written")
			}},
		{Name: "a lead moves to active when its task is done", Token: colleague, Method: "PATCH", Path: "/crm/tasks/{task}",
			Body: map[string]any{"_status": "done"}, Status: 200,
			Given: func(f *fixture) ids {
				c := f.consumer()
				return ids{"consumer": c, "task": f.task("consumer", c)}
			},
			Events: []string{"consumers.updated", "tasks.updated"}, Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "active", f.Stored("consumers", v["consumer"])["_status"])
				stampedBy("consumers", "consumer")(f, v, r)
				id, _ := f.Colleague()
				for _, ev := range f.Recorded {
					if ev.Name == "consumers.updated" {
						assert.Equal(f.T, id, ev.Data["modifiedBy"], "the event shows the consumer as written")
					}
				}
			}},
		{Name: "anonymize", Token: colleague, Method: "POST", Path: "/crm/consumers/{consumer}/actions/anonymize", Status: 200,
			Given:  func(f *fixture) ids { return ids{"consumer": f.consumer("first_name", "Ada")} },
			Events: []string{"consumers.anonymized"}, Then: stampedBy("consumers", "consumer")},
	})
}

// TestTaskLinksItsConsumer: the consumer relation of a task is that task's
// consumer, not the consumers collection; a task without one lists none.
func TestTaskLinksItsConsumer(t *testing.T) {
	f := newFixture(t)
	c := f.consumer()
	withConsumer, without := f.task("consumer", c), f.task()
	rel := func(id string) []any {
		r := f.P.Do("GET", "/crm/tasks/"+id, f.Admin, nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		rels, _ := r.Meta()["relations"].([]any)
		return rels
	}
	rels := rel(withConsumer)
	require.Len(t, rels, 1)
	link := rels[0].(map[string]any)
	assert.Equal(t, f.P.URL+"/crm/consumers/"+c, link["href"])
	assert.Equal(t, "crm.consumers.view", link["right"])
	assert.Empty(t, rel(without), "no consumer, no consumer relation")
}

// TestExportRight: mail logs declare marketing.maillogs.export; a CSV or
// YAML list of them is an export and needs it, a JSON list does not.
func TestExportRight(t *testing.T) {
	f := newFixture(t)
	c := f.consumer()
	given := func(f *fixture) ids { f.mailLog(c, "x@example.com"); return ids{"c": c} }
	view := []string{"crm.consumers.view", "marketing.maillogs.view"}
	export := append(view, "marketing.maillogs.export")
	// The refusal comes in the format asked for (CSV or YAML), so its code
	// and field are read from the text.
	namesTheRight := func(f *fixture, _ ids, r *testenv.Resp) {
		assert.Contains(f.T, string(r.Body), "auth.scope")
		assert.Contains(f.T, string(r.Body), "marketing.maillogs.export")
	}
	refused := func(name, path string) scenario {
		return scenario{Name: name, Scopes: view, Given: given, Method: "GET", Path: path, Status: 403, Then: namesTheRight}
	}
	apitest.Run(t, f, []scenario{
		{Name: "a JSON list needs the view right only", Scopes: view, Given: given, Method: "GET", Path: "/marketing/maillogs", Status: 200},
		refused("a CSV list is an export", "/marketing/maillogs?format=csv"),
		refused("a YAML list is an export", "/marketing/maillogs?format=yaml"),
		{Name: "an Accept header asks for an export too", Scopes: view, Given: given, Method: "GET", Path: "/marketing/maillogs",
			Header: []string{"Accept", "text/csv"}, Status: 403, Then: namesTheRight},
		refused("the mail history of a consumer as CSV is an export", "/crm/consumers/{c}/maillogs?format=csv"),
		{Name: "with the export right", Scopes: export, Given: given, Method: "GET", Path: "/marketing/maillogs?format=csv", Status: 200},
		{Name: "resources without an export right export with view", Scopes: []string{"crm.consumers.view"}, Given: given,
			Method: "GET", Path: "/crm/consumers?format=csv", Status: 200},
	})
}
