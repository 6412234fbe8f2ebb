package crm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// The route tables: every CRM route on its happy path, with the records in
// the store and the events afterwards. Validation, rights, tenancy, formats,
// lists and the actions' rules have tables of their own.

func TestConsumerRoutes(t *testing.T) {
	f := newFixture(t)
	full := map[string]any{
		"email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace",
		"profilepicture": "https://img.example.com/ada.png", "phone": "+4930123456", "country": "DE",
		"customCRM": map[string]any{"company": "Acme", "seats": 5}, "tags": []any{"vip", "b2b"},
	}
	ada := func(f *fixture) ids {
		return ids{"id": f.consumer("first_name", "Ada", "last_name", "Lovelace", "phone", "+4930123456", "country", "DE")}
	}
	run(t, f, []scenario{
		{
			name: "POST creates a lead and answers the whole envelope", method: "POST", path: "/crm/consumers", body: full,
			status: 201, events: []string{"consumers.created"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				id, _ := p["_id"].(string)
				require.Len(f.t, id, 24)
				for k, want := range map[string]any{
					"email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace", "phone": "+4930123456", "country": "DE",
					"profilepicture": "https://img.example.com/ada.png", "_status": "lead", "displayName": "Ada Lovelace Acme",
					"createdBy": f.p.Admin.ID, "modifiedBy": f.p.Admin.ID,
					"customCRM": map[string]any{"company": "Acme", "seats": float64(5)}, "tags": []any{"vip", "b2b"},
				} {
					assert.Equal(f.t, want, p[k], k)
				}
				assert.Equal(f.t, p["createdAt"], p["updatedAt"])
				f.checkConsumerMeta(f.t, r, id)

				st := f.stored("consumers", id)
				require.NotNil(f.t, st)
				assert.Equal(f.t, "ada@example.com", st["email"])
				assert.Equal(f.t, "lead", st["_status"])
				assert.Equal(f.t, int64(5), st["customCRM"].(map[string]any)["seats"], "numbers are stored as integers")
				assert.NotContains(f.t, st, "displayName", "the display name is virtual, never stored")
				assert.Equal(f.t, id, f.recorded[0].Data["_id"], "the event carries the record")
				assert.Equal(f.t, "ada@example.com", f.recorded[0].Data["email"])
			},
		},
		{
			name: "GET /:id answers the record", given: ada, method: "GET", path: "/crm/consumers/{id}", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, v["id"], r.Payload()["_id"])
				assert.Equal(f.t, "Ada Lovelace", r.Payload()["displayName"])
				f.checkConsumerMeta(f.t, r, v["id"])
			},
		},
		{
			name: "GET /:id?fields= projects the record", given: ada, method: "GET", path: "/crm/consumers/{id}?fields=email,country", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, []string{"_id", "country", "email"}, sortedKeys(r.Payload()))
				assert.Equal(f.t, "DE", r.Payload()["country"])
			},
		},
		{name: "GET /:id?fields= with an unknown field", given: ada, method: "GET", path: "/crm/consumers/{id}?fields=nickname",
			status: 400, codes: []string{"request.query"}, field: "fields"},
		{
			name: "GET lists the records", given: ada, method: "GET", path: "/crm/consumers", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Contains(f.t, listIDs(r), v["id"])
				assert.Equal(f.t, float64(1), r.Meta()["page"])
				assert.Equal(f.t, float64(25), r.Meta()["limit"], "the default limit")
				assert.NotContains(f.t, r.Meta(), "total", "totals are opt-in")
			},
		},
		{
			name: "PUT with _id in the body replaces the record", given: ada, method: "PUT", path: "/crm/consumers",
			body: map[string]any{"_id": "{id}", "email": "grace@example.com", "first_name": "Grace"}, status: 200,
			events: []string{"consumers.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.t, "grace@example.com", p["email"])
				assert.Equal(f.t, "Grace", p["displayName"])
				assert.NotContains(f.t, p, "last_name", "PUT replaces: fields left out are removed")
				f.checkConsumerMeta(f.t, r, v["id"])
				st := f.stored("consumers", v["id"])
				assert.Equal(f.t, "grace@example.com", st["email"])
				assert.NotContains(f.t, st, "last_name")
				assert.NotContains(f.t, st, "phone")
				assert.Equal(f.t, "lead", st["_status"], "platform fields survive a replace")
				assert.NotNil(f.t, st["createdAt"])
				assert.Equal(f.t, v["id"], f.recorded[0].Data["_id"])
			},
		},
		{
			name: "PUT /:id replaces the record", given: ada, method: "PUT", path: "/crm/consumers/{id}",
			body: map[string]any{"email": "ada.l@example.com", "country": "GB"}, status: 200, events: []string{"consumers.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.stored("consumers", v["id"])
				assert.Equal(f.t, "ada.l@example.com", st["email"])
				assert.Equal(f.t, "GB", st["country"])
				assert.NotContains(f.t, st, "first_name")
			},
		},
		{
			name: "PUT /:id accepts the record's own _id in the body", given: ada, method: "PUT", path: "/crm/consumers/{id}",
			body: map[string]any{"_id": "{id}", "email": "ada.m@example.com"}, status: 200, events: []string{"consumers.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, "ada.m@example.com", f.stored("consumers", v["id"])["email"])
			},
		},
		{
			name: "PATCH changes the given fields and null removes one", given: ada, method: "PATCH", path: "/crm/consumers/{id}",
			body: map[string]any{"first_name": "Augusta", "phone": nil}, status: 200, events: []string{"consumers.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, "Augusta Lovelace", r.Payload()["displayName"])
				st := f.stored("consumers", v["id"])
				assert.Equal(f.t, "Augusta", st["first_name"])
				assert.Equal(f.t, "Lovelace", st["last_name"], "PATCH keeps fields it does not name")
				assert.Equal(f.t, "DE", st["country"])
				assert.NotContains(f.t, st, "phone")
				assert.Equal(f.t, "Augusta", f.recorded[0].Data["first_name"])
			},
		},
		{
			name: "PATCH accepts application/merge-patch+json", given: ada, method: "PATCH", path: "/crm/consumers/{id}",
			header: []string{"Content-Type", "application/merge-patch+json"},
			body:   map[string]any{"tags": []any{"newsletter"}}, status: 200, events: []string{"consumers.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, []any{"newsletter"}, f.stored("consumers", v["id"])["tags"])
			},
		},
		{
			name: "DELETE removes the record and answers it", given: ada, method: "DELETE", path: "/crm/consumers/{id}",
			status: 200, events: []string{"consumers.deleted"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, v["id"], r.Payload()["_id"])
				assert.Nil(f.t, f.stored("consumers", v["id"]))
				assert.Equal(f.t, v["id"], f.recorded[0].Data["_id"])
				assert.Equal(f.t, 404, f.p.Do("GET", "/crm/consumers/"+v["id"], f.admin, nil).Status)
				assert.Equal(f.t, 404, f.p.Do("DELETE", "/crm/consumers/"+v["id"], f.admin, nil).Status, "a second delete finds nothing")
			},
		},
	})
}

func TestConsumerSubResources(t *testing.T) {
	f := newFixture(t)
	// consumer c has one of each; consumer d's records must not show up under c.
	given := func(f *fixture) ids {
		c, d := f.consumer(), f.consumer()
		return ids{
			"c": c, "d": d,
			"task": f.task("consumer", c), "otherTask": f.task("consumer", d),
			"note": f.note("consumers", c), "otherNote": f.note("consumers", d),
			"mail": f.mailLog(c, "c@example.com"), "otherMail": f.mailLog(d, "d@example.com"),
		}
	}
	only := func(key string) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.t, []string{v[key]}, listIDs(r))
			assert.Equal(f.t, f.moduleBase()+"/consumers/"+v["c"]+"/"+map[string]string{"task": "tasks", "note": "notes", "mail": "maillogs"}[key]+"?page=1",
				linkHref(r, "self"), "the self link of a sub-resource page")
		}
	}
	run(t, f, []scenario{
		{name: "tasks of a consumer", given: given, method: "GET", path: "/crm/consumers/{c}/tasks", status: 200, then: only("task")},
		{name: "notes on a consumer", given: given, method: "GET", path: "/crm/consumers/{c}/notes", status: 200, then: only("note")},
		{name: "mail history of a consumer", given: given, method: "GET", path: "/crm/consumers/{c}/maillogs", status: 200, then: only("mail")},
		{name: "orders need the shop module", given: given, method: "GET", path: "/crm/consumers/{c}/orders", status: 404, codes: []string{"module.inactive"}},
		{name: "a sub-resource takes list parameters", given: given, method: "GET", path: "/crm/consumers/{c}/tasks?count=true&fields=title",
			status: 200, then: func(f *fixture, v ids, r *testenv.Resp) {
				require.Len(f.t, r.List(), 1)
				assert.Equal(f.t, []string{"_id", "title"}, sortedKeys(r.List()[0]))
				assert.Equal(f.t, float64(1), r.Meta()["total"])
			}},
		{name: "sub-resources of a missing consumer answer 404", method: "GET", path: "/crm/consumers/0123456789abcdef01234567/tasks",
			status: 404, codes: []string{"resource.not_found"}},
		{name: "orders of a missing consumer answer 404 not found", method: "GET", path: "/crm/consumers/0123456789abcdef01234567/orders",
			status: 404, codes: []string{"resource.not_found"}},
	})
}

func TestTaskRoutes(t *testing.T) {
	f := newFixture(t)
	aTask := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "id": f.task("consumer", c, "priority", "high", "description", "**urgent**")}
	}
	run(t, f, []scenario{
		{
			name: "POST creates an open task with the declared defaults", given: func(f *fixture) ids { return ids{"c": f.consumer()} },
			method: "POST", path: "/crm/tasks", body: map[string]any{"title": "Send offer", "consumer": "{c}", "dueDate": "2026-12-01"},
			status: 201, events: []string{"tasks.created"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				for k, want := range map[string]any{"title": "Send offer", "consumer": v["c"], "priority": "medium", "type": "Task",
					"_status": "open", "dueDate": "2026-12-01T00:00:00Z"} {
					assert.Equal(f.t, want, p[k], k)
				}
				id := p["_id"].(string)
				assert.Equal(f.t, []any{link{"rel": "self", "href": f.moduleBase() + "/tasks/" + id, "method": "GET", "title": "task", "types": types}}, r.Meta()["links"])
				assert.Equal(f.t, []any{link{"rel": "consumer", "title": "the task's consumer", "href": f.gateway() + "/consumers", "method": "GET",
					"types": types, "right": "crm.consumers.view"}}, r.Meta()["relations"])
				assert.Equal(f.t, []string{"UPDATE", "DELETE", "ASSIGN", "REOPEN"}, actionNames(r))
				st := f.stored("tasks", id)
				assert.Equal(f.t, "open", st["_status"])
				assert.Equal(f.t, "medium", st["priority"])
				assert.Equal(f.t, id, f.recorded[0].Data["_id"])
			},
		},
		{name: "GET /:id answers the task", given: aTask, method: "GET", path: "/crm/tasks/{id}", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, "**urgent**", r.Payload()["description"])
			}},
		{name: "GET lists the tasks", given: aTask, method: "GET", path: "/crm/tasks", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Contains(f.t, listIDs(r), v["id"]) }},
		{
			name: "PUT with _id in the body replaces the task", given: aTask, method: "PUT", path: "/crm/tasks",
			body: map[string]any{"_id": "{id}", "title": "Send the offer", "_status": "in-progress"}, status: 200, events: []string{"tasks.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.stored("tasks", v["id"])
				assert.Equal(f.t, "Send the offer", st["title"])
				assert.Equal(f.t, "in-progress", st["_status"])
				assert.Equal(f.t, "medium", st["priority"], "a replace without priority takes the default")
				assert.NotContains(f.t, st, "consumer")
			},
		},
		{
			name: "PUT /:id replaces the task", given: aTask, method: "PUT", path: "/crm/tasks/{id}",
			body: map[string]any{"title": "Call", "priority": "low", "consumer": "{c}"}, status: 200, events: []string{"tasks.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.stored("tasks", v["id"])
				assert.Equal(f.t, "low", st["priority"])
				assert.NotContains(f.t, st, "description")
			},
		},
		{
			name: "PATCH moves the task on", given: aTask, method: "PATCH", path: "/crm/tasks/{id}",
			body: map[string]any{"_status": "in-progress"}, status: 200, events: []string{"tasks.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.stored("tasks", v["id"])
				assert.Equal(f.t, "in-progress", st["_status"])
				assert.Equal(f.t, "high", st["priority"])
			},
		},
		{
			name: "DELETE removes the task", given: aTask, method: "DELETE", path: "/crm/tasks/{id}", status: 200, events: []string{"tasks.deleted"},
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Nil(f.t, f.stored("tasks", v["id"])) },
		},
		{
			name: "assign sets assignedTo", given: aTask, method: "POST", path: "/crm/tasks/{id}/actions/assign",
			body: map[string]any{"userId": "{user}"}, status: 200, events: []string{"tasks.assigned"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, f.p.Admin.ID, r.Payload()["assignedTo"])
				assert.Equal(f.t, f.p.Admin.ID, f.stored("tasks", v["id"])["assignedTo"])
				assert.Equal(f.t, f.p.Admin.ID, f.recorded[0].Data["assignedTo"])
				assert.Equal(f.t, f.moduleBase()+"/tasks/"+v["id"], linkHref(r, "self"))
			},
		},
		{
			name: "reopen moves a done task back to open",
			given: func(f *fixture) ids {
				return ids{"id": f.task("_status", "done")}
			},
			method: "POST", path: "/crm/tasks/{id}/actions/reopen", status: 200, events: []string{"tasks.reopened"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, "open", r.Payload()["_status"])
				assert.Equal(f.t, "open", f.stored("tasks", v["id"])["_status"])
			},
		},
	})
}

func TestNoteRoutes(t *testing.T) {
	f := newFixture(t)
	aNote := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "id": f.note("consumers", c, "body", "# likes *tea*")}
	}
	run(t, f, []scenario{
		{
			name: "POST annotates a consumer", given: func(f *fixture) ids { return ids{"c": f.consumer()} },
			method: "POST", path: "/crm/notes", body: map[string]any{"body": "first call", "targetType": "consumers", "targetId": "{c}"},
			status: 201, events: []string{"notes.created"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.t, false, p["pinned"], "notes are unpinned by default")
				assert.Equal(f.t, v["c"], p["targetId"])
				st := f.stored("notes", p["_id"].(string))
				assert.Equal(f.t, "first call", st["body"])
				assert.Equal(f.t, false, st["pinned"])
				assert.Equal(f.t, f.moduleBase()+"/notes/"+p["_id"].(string), linkHref(r, "self"))
			},
		},
		{
			name: "POST annotates a task", given: func(f *fixture) ids { return ids{"task": f.task()} },
			method: "POST", path: "/crm/notes", body: map[string]any{"body": "blocked", "targetType": "tasks", "targetId": "{task}", "pinned": true},
			status: 201, events: []string{"notes.created"},
		},
		{name: "GET /:id answers the note", given: aNote, method: "GET", path: "/crm/notes/{id}", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, "# likes *tea*", r.Payload()["body"]) }},
		{name: "GET lists the notes", given: aNote, method: "GET", path: "/crm/notes", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Contains(f.t, listIDs(r), v["id"]) }},
		{
			name: "PUT with _id in the body replaces the note", given: aNote, method: "PUT", path: "/crm/notes",
			body:   map[string]any{"_id": "{id}", "body": "likes coffee", "targetType": "consumers", "targetId": "{c}", "pinned": true},
			status: 200, events: []string{"notes.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.stored("notes", v["id"])
				assert.Equal(f.t, "likes coffee", st["body"])
				assert.Equal(f.t, true, st["pinned"])
			},
		},
		{
			name: "PUT /:id replaces the note", given: aNote, method: "PUT", path: "/crm/notes/{id}",
			body: map[string]any{"body": "likes water", "targetType": "consumers", "targetId": "{c}"}, status: 200, events: []string{"notes.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, "likes water", f.stored("notes", v["id"])["body"])
			},
		},
		{
			name: "PATCH pins the note", given: aNote, method: "PATCH", path: "/crm/notes/{id}", body: map[string]any{"pinned": true},
			status: 200, events: []string{"notes.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.stored("notes", v["id"])
				assert.Equal(f.t, true, st["pinned"])
				assert.Equal(f.t, "# likes *tea*", st["body"])
			},
		},
		{
			name: "DELETE removes the note", given: aNote, method: "DELETE", path: "/crm/notes/{id}", status: 200, events: []string{"notes.deleted"},
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Nil(f.t, f.stored("notes", v["id"])) },
		},
	})
}

func TestMailLogRoutes(t *testing.T) {
	f := newFixture(t)
	aLog := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "id": f.mailLog(c, "reader@example.com")}
	}
	run(t, f, []scenario{
		{name: "GET /marketing/maillogs lists the mail logs", given: aLog, method: "GET", path: "/marketing/maillogs", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Contains(f.t, listIDs(r), v["id"]) }},
		{
			name: "GET /marketing/maillogs/:id answers a read-only record", given: aLog, method: "GET", path: "/marketing/maillogs/{id}", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, "reader@example.com", r.Payload()["to"])
				assert.Equal(f.t, "http://marketing-api."+f.p.Config.PlatformDomain+"/maillogs/"+v["id"], linkHref(r, "self"))
				assert.Empty(f.t, r.Meta()["actions"], "a read-only resource offers no actions")
			},
		},
		{name: "the module host form reaches the mail logs", given: aLog, method: "GET", path: "/maillogs/{id}",
			header: []string{"Host", "marketing-api.{domain}"}, status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, v["id"], r.Payload()["_id"]) }},
		{name: "the mail logs cannot be created", method: "POST", path: "/marketing/maillogs", body: map[string]any{"to": "x@example.com"},
			status: 405, codes: []string{"request.method"}},
		{name: "the mail logs cannot be deleted", given: aLog, method: "DELETE", path: "/marketing/maillogs/{id}", status: 405, codes: []string{"request.method"}},
		{name: "the mail logs need marketing.maillogs.view", given: aLog, method: "GET", path: "/marketing/maillogs", scopes: []string{"crm.*"},
			status: 403, codes: []string{"auth.scope"}},
	})
}
