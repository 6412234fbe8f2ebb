package crm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/apitest"
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
	apitest.Run(t, f, []scenario{
		{
			Name: "POST creates a lead and answers the whole envelope", Method: "POST", Path: "/crm/consumers", Body: full,
			Status: 201, Events: []string{"consumers.created"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				id, _ := p["_id"].(string)
				require.Len(f.T, id, 24)
				for k, want := range map[string]any{
					"email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace", "phone": "+4930123456", "country": "DE",
					"profilepicture": "https://img.example.com/ada.png", "_status": "lead", "displayName": "Ada Lovelace Acme",
					"createdBy": f.P.Admin.ID, "modifiedBy": f.P.Admin.ID,
					"customCRM": map[string]any{"company": "Acme", "seats": float64(5)}, "tags": []any{"vip", "b2b"},
				} {
					assert.Equal(f.T, want, p[k], k)
				}
				assert.Equal(f.T, p["createdAt"], p["updatedAt"])
				f.checkConsumerMeta(f.T, r, id)

				st := f.Stored("consumers", id)
				require.NotNil(f.T, st)
				assert.Equal(f.T, "ada@example.com", st["email"])
				assert.Equal(f.T, "lead", st["_status"])
				assert.Equal(f.T, int64(5), st["customCRM"].(map[string]any)["seats"], "numbers are stored as integers")
				assert.NotContains(f.T, st, "displayName", "the display name is virtual, never stored")
				assert.Equal(f.T, id, f.Recorded[0].Data["_id"], "the event carries the record")
				assert.Equal(f.T, "ada@example.com", f.Recorded[0].Data["email"])
			},
		},
		{
			Name: "GET /:id answers the record", Given: ada, Method: "GET", Path: "/crm/consumers/{id}", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, v["id"], r.Payload()["_id"])
				assert.Equal(f.T, "Ada Lovelace", r.Payload()["displayName"])
				f.checkConsumerMeta(f.T, r, v["id"])
			},
		},
		{
			Name: "GET /:id?fields= projects the record", Given: ada, Method: "GET", Path: "/crm/consumers/{id}?fields=email,country", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, []string{"_id", "country", "email"}, apitest.SortedKeys(r.Payload()))
				assert.Equal(f.T, "DE", r.Payload()["country"])
			},
		},
		{Name: "GET /:id?fields= with an unknown field", Given: ada, Method: "GET", Path: "/crm/consumers/{id}?fields=nickname",
			Status: 400, Codes: []string{"request.query"}, Field: "fields"},
		{
			Name: "GET lists the records", Given: ada, Method: "GET", Path: "/crm/consumers", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Contains(f.T, apitest.ListIDs(r), v["id"])
				assert.Equal(f.T, float64(1), r.Meta()["page"])
				assert.Equal(f.T, float64(25), r.Meta()["limit"], "the default limit")
				assert.NotContains(f.T, r.Meta(), "total", "totals are opt-in")
			},
		},
		{
			Name: "PUT with _id in the body replaces the record", Given: ada, Method: "PUT", Path: "/crm/consumers",
			Body: map[string]any{"_id": "{id}", "email": "grace@example.com", "first_name": "Grace"}, Status: 200,
			Events: []string{"consumers.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.T, "grace@example.com", p["email"])
				assert.Equal(f.T, "Grace", p["displayName"])
				assert.NotContains(f.T, p, "last_name", "PUT replaces: fields left out are removed")
				f.checkConsumerMeta(f.T, r, v["id"])
				st := f.Stored("consumers", v["id"])
				assert.Equal(f.T, "grace@example.com", st["email"])
				assert.NotContains(f.T, st, "last_name")
				assert.NotContains(f.T, st, "phone")
				assert.Equal(f.T, "lead", st["_status"], "platform fields survive a replace")
				assert.NotNil(f.T, st["createdAt"])
				assert.Equal(f.T, v["id"], f.Recorded[0].Data["_id"])
			},
		},
		{
			Name: "PUT /:id replaces the record", Given: ada, Method: "PUT", Path: "/crm/consumers/{id}",
			Body: map[string]any{"email": "ada.l@example.com", "country": "GB"}, Status: 200, Events: []string{"consumers.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.Stored("consumers", v["id"])
				assert.Equal(f.T, "ada.l@example.com", st["email"])
				assert.Equal(f.T, "GB", st["country"])
				assert.NotContains(f.T, st, "first_name")
			},
		},
		{
			Name: "PUT /:id accepts the record's own _id in the body", Given: ada, Method: "PUT", Path: "/crm/consumers/{id}",
			Body: map[string]any{"_id": "{id}", "email": "ada.m@example.com"}, Status: 200, Events: []string{"consumers.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "ada.m@example.com", f.Stored("consumers", v["id"])["email"])
			},
		},
		{
			Name: "PATCH changes the given fields and null removes one", Given: ada, Method: "PATCH", Path: "/crm/consumers/{id}",
			Body: map[string]any{"first_name": "Augusta", "phone": nil}, Status: 200, Events: []string{"consumers.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "Augusta Lovelace", r.Payload()["displayName"])
				st := f.Stored("consumers", v["id"])
				assert.Equal(f.T, "Augusta", st["first_name"])
				assert.Equal(f.T, "Lovelace", st["last_name"], "PATCH keeps fields it does not name")
				assert.Equal(f.T, "DE", st["country"])
				assert.NotContains(f.T, st, "phone")
				assert.Equal(f.T, "Augusta", f.Recorded[0].Data["first_name"])
			},
		},
		{
			Name: "PATCH accepts application/merge-patch+json", Given: ada, Method: "PATCH", Path: "/crm/consumers/{id}",
			Header: []string{"Content-Type", "application/merge-patch+json"},
			Body:   map[string]any{"tags": []any{"newsletter"}}, Status: 200, Events: []string{"consumers.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, []any{"newsletter"}, f.Stored("consumers", v["id"])["tags"])
			},
		},
		{
			Name: "DELETE removes the record and answers it", Given: ada, Method: "DELETE", Path: "/crm/consumers/{id}",
			Status: 200, Events: []string{"consumers.deleted"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, v["id"], r.Payload()["_id"])
				assert.Nil(f.T, f.Stored("consumers", v["id"]))
				assert.Equal(f.T, v["id"], f.Recorded[0].Data["_id"])
				assert.Equal(f.T, 404, f.P.Do("GET", "/crm/consumers/"+v["id"], f.Admin, nil).Status)
				assert.Equal(f.T, 404, f.P.Do("DELETE", "/crm/consumers/"+v["id"], f.Admin, nil).Status, "a second delete finds nothing")
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
			assert.Equal(f.T, []string{v[key]}, apitest.ListIDs(r))
			assert.Equal(f.T, f.moduleBase()+"/consumers/"+v["c"]+"/"+map[string]string{"task": "tasks", "note": "notes", "mail": "maillogs"}[key]+"?page=1",
				apitest.LinkHref(r, "self"), "the self link of a sub-resource page")
		}
	}
	apitest.Run(t, f, []scenario{
		{Name: "tasks of a consumer", Given: given, Method: "GET", Path: "/crm/consumers/{c}/tasks", Status: 200, Then: only("task")},
		{Name: "notes on a consumer", Given: given, Method: "GET", Path: "/crm/consumers/{c}/notes", Status: 200, Then: only("note")},
		{Name: "mail history of a consumer", Given: given, Method: "GET", Path: "/crm/consumers/{c}/maillogs", Status: 200, Then: only("mail")},
		{Name: "orders need the shop module", Given: given, Method: "GET", Path: "/crm/consumers/{c}/orders", Status: 404, Codes: []string{"module.inactive"}},
		{Name: "a sub-resource takes list parameters", Given: given, Method: "GET", Path: "/crm/consumers/{c}/tasks?count=true&fields=title",
			Status: 200, Then: func(f *fixture, v ids, r *testenv.Resp) {
				require.Len(f.T, r.List(), 1)
				assert.Equal(f.T, []string{"_id", "title"}, apitest.SortedKeys(r.List()[0]))
				assert.Equal(f.T, float64(1), r.Meta()["total"])
			}},
		{Name: "sub-resources of a missing consumer answer 404", Method: "GET", Path: "/crm/consumers/0123456789abcdef01234567/tasks",
			Status: 404, Codes: []string{"resource.not_found"}},
		{Name: "orders of a missing consumer answer 404 not found", Method: "GET", Path: "/crm/consumers/0123456789abcdef01234567/orders",
			Status: 404, Codes: []string{"resource.not_found"}},
	})
}

func TestTaskRoutes(t *testing.T) {
	f := newFixture(t)
	aTask := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "id": f.task("consumer", c, "priority", "high", "description", "**urgent**")}
	}
	apitest.Run(t, f, []scenario{
		{
			Name: "POST creates an open task with the declared defaults", Given: func(f *fixture) ids { return ids{"c": f.consumer()} },
			Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "Send offer", "consumer": "{c}", "dueDate": "2026-12-01"},
			Status: 201, Events: []string{"tasks.created"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				for k, want := range map[string]any{"title": "Send offer", "consumer": v["c"], "priority": "medium", "type": "Task",
					"_status": "open", "dueDate": "2026-12-01T00:00:00Z"} {
					assert.Equal(f.T, want, p[k], k)
				}
				id := p["_id"].(string)
				assert.Equal(f.T, []any{link{"rel": "self", "href": f.moduleBase() + "/tasks/" + id, "method": "GET", "title": "task", "types": types}}, r.Meta()["links"])
				assert.Equal(f.T, []any{link{"rel": "consumer", "title": "the task's consumer", "href": f.gateway() + "/consumers/" + v["c"], "method": "GET",
					"types": types, "right": "crm.consumers.view"}}, r.Meta()["relations"])
				assert.Equal(f.T, []string{"UPDATE", "DELETE", "ASSIGN", "REOPEN"}, apitest.ActionNames(r))
				st := f.Stored("tasks", id)
				assert.Equal(f.T, "open", st["_status"])
				assert.Equal(f.T, "medium", st["priority"])
				assert.Equal(f.T, id, f.Recorded[0].Data["_id"])
			},
		},
		{Name: "GET /:id answers the task", Given: aTask, Method: "GET", Path: "/crm/tasks/{id}", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "**urgent**", r.Payload()["description"])
			}},
		{Name: "GET lists the tasks", Given: aTask, Method: "GET", Path: "/crm/tasks", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Contains(f.T, apitest.ListIDs(r), v["id"]) }},
		{
			Name: "PUT with _id in the body replaces the task", Given: aTask, Method: "PUT", Path: "/crm/tasks",
			Body: map[string]any{"_id": "{id}", "title": "Send the offer", "_status": "in-progress"}, Status: 200, Events: []string{"tasks.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.Stored("tasks", v["id"])
				assert.Equal(f.T, "Send the offer", st["title"])
				assert.Equal(f.T, "in-progress", st["_status"])
				assert.Equal(f.T, "medium", st["priority"], "a replace without priority takes the default")
				assert.NotContains(f.T, st, "consumer")
			},
		},
		{
			Name: "PUT /:id replaces the task", Given: aTask, Method: "PUT", Path: "/crm/tasks/{id}",
			Body: map[string]any{"title": "Call", "priority": "low", "consumer": "{c}"}, Status: 200, Events: []string{"tasks.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.Stored("tasks", v["id"])
				assert.Equal(f.T, "low", st["priority"])
				assert.NotContains(f.T, st, "description")
			},
		},
		{
			Name: "PATCH moves the task on", Given: aTask, Method: "PATCH", Path: "/crm/tasks/{id}",
			Body: map[string]any{"_status": "in-progress"}, Status: 200, Events: []string{"tasks.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.Stored("tasks", v["id"])
				assert.Equal(f.T, "in-progress", st["_status"])
				assert.Equal(f.T, "high", st["priority"])
			},
		},
		{
			Name: "DELETE removes the task", Given: aTask, Method: "DELETE", Path: "/crm/tasks/{id}", Status: 200, Events: []string{"tasks.deleted"},
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Nil(f.T, f.Stored("tasks", v["id"])) },
		},
		{
			Name: "assign sets assignedTo", Given: aTask, Method: "POST", Path: "/crm/tasks/{id}/actions/assign",
			Body: map[string]any{"userId": "{user}"}, Status: 200, Events: []string{"tasks.assigned"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, f.P.Admin.ID, r.Payload()["assignedTo"])
				assert.Equal(f.T, f.P.Admin.ID, f.Stored("tasks", v["id"])["assignedTo"])
				assert.Equal(f.T, f.P.Admin.ID, f.Recorded[0].Data["assignedTo"])
				assert.Equal(f.T, f.moduleBase()+"/tasks/"+v["id"], apitest.LinkHref(r, "self"))
			},
		},
		{
			Name: "reopen moves a done task back to open",
			Given: func(f *fixture) ids {
				return ids{"id": f.task("_status", "done")}
			},
			Method: "POST", Path: "/crm/tasks/{id}/actions/reopen", Status: 200, Events: []string{"tasks.reopened"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "open", r.Payload()["_status"])
				assert.Equal(f.T, "open", f.Stored("tasks", v["id"])["_status"])
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
	apitest.Run(t, f, []scenario{
		{
			Name: "POST annotates a consumer", Given: func(f *fixture) ids { return ids{"c": f.consumer()} },
			Method: "POST", Path: "/crm/notes", Body: map[string]any{"body": "first call", "targetType": "consumers", "targetId": "{c}"},
			Status: 201, Events: []string{"notes.created"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.T, false, p["pinned"], "notes are unpinned by default")
				assert.Equal(f.T, v["c"], p["targetId"])
				st := f.Stored("notes", p["_id"].(string))
				assert.Equal(f.T, "first call", st["body"])
				assert.Equal(f.T, false, st["pinned"])
				assert.Equal(f.T, f.moduleBase()+"/notes/"+p["_id"].(string), apitest.LinkHref(r, "self"))
			},
		},
		{
			Name: "POST annotates a task", Given: func(f *fixture) ids { return ids{"task": f.task()} },
			Method: "POST", Path: "/crm/notes", Body: map[string]any{"body": "blocked", "targetType": "tasks", "targetId": "{task}", "pinned": true},
			Status: 201, Events: []string{"notes.created"},
		},
		{Name: "GET /:id answers the note", Given: aNote, Method: "GET", Path: "/crm/notes/{id}", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, "# likes *tea*", r.Payload()["body"]) }},
		{Name: "GET lists the notes", Given: aNote, Method: "GET", Path: "/crm/notes", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Contains(f.T, apitest.ListIDs(r), v["id"]) }},
		{
			Name: "PUT with _id in the body replaces the note", Given: aNote, Method: "PUT", Path: "/crm/notes",
			Body:   map[string]any{"_id": "{id}", "body": "likes coffee", "targetType": "consumers", "targetId": "{c}", "pinned": true},
			Status: 200, Events: []string{"notes.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.Stored("notes", v["id"])
				assert.Equal(f.T, "likes coffee", st["body"])
				assert.Equal(f.T, true, st["pinned"])
			},
		},
		{
			Name: "PUT /:id replaces the note", Given: aNote, Method: "PUT", Path: "/crm/notes/{id}",
			Body: map[string]any{"body": "likes water", "targetType": "consumers", "targetId": "{c}"}, Status: 200, Events: []string{"notes.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "likes water", f.Stored("notes", v["id"])["body"])
			},
		},
		{
			Name: "PATCH pins the note", Given: aNote, Method: "PATCH", Path: "/crm/notes/{id}", Body: map[string]any{"pinned": true},
			Status: 200, Events: []string{"notes.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				st := f.Stored("notes", v["id"])
				assert.Equal(f.T, true, st["pinned"])
				assert.Equal(f.T, "# likes *tea*", st["body"])
			},
		},
		{
			Name: "DELETE removes the note", Given: aNote, Method: "DELETE", Path: "/crm/notes/{id}", Status: 200, Events: []string{"notes.deleted"},
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Nil(f.T, f.Stored("notes", v["id"])) },
		},
	})
}

func TestMailLogRoutes(t *testing.T) {
	f := newFixture(t)
	aLog := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "id": f.mailLog(c, "reader@example.com")}
	}
	apitest.Run(t, f, []scenario{
		{Name: "GET /marketing/maillogs lists the mail logs", Given: aLog, Method: "GET", Path: "/marketing/maillogs", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Contains(f.T, apitest.ListIDs(r), v["id"]) }},
		{
			Name: "GET /marketing/maillogs/:id answers a read-only record", Given: aLog, Method: "GET", Path: "/marketing/maillogs/{id}", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "reader@example.com", r.Payload()["to"])
				assert.Equal(f.T, "http://marketing-api."+f.P.Config.PlatformDomain+"/maillogs/"+v["id"], apitest.LinkHref(r, "self"))
				assert.Empty(f.T, r.Meta()["actions"], "a read-only resource offers no actions")
			},
		},
		{Name: "the module host form reaches the mail logs", Given: aLog, Method: "GET", Path: "/maillogs/{id}",
			Header: []string{"Host", "marketing-api.{domain}"}, Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, v["id"], r.Payload()["_id"]) }},
		{Name: "the mail logs cannot be created", Method: "POST", Path: "/marketing/maillogs", Body: map[string]any{"to": "x@example.com"},
			Status: 405, Codes: []string{"request.method"}},
		{Name: "the mail logs cannot be deleted", Given: aLog, Method: "DELETE", Path: "/marketing/maillogs/{id}", Status: 405, Codes: []string{"request.method"}},
		{Name: "the mail logs need marketing.maillogs.view", Given: aLog, Method: "GET", Path: "/marketing/maillogs", Scopes: []string{"crm.*"},
			Status: 403, Codes: []string{"auth.scope"}},
	})
}
