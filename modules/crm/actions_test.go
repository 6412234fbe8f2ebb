package crm_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/modules/crm"
	"platform/test/apitest"
	"platform/test/testenv"
)

// personal are the consumer fields anonymize removes.
var personal = []string{"first_name", "last_name", "profilepicture", "phone", "country", "customCRM", "tags", "displayName"}

func TestAnonymize(t *testing.T) {
	f := newFixture(t)
	given := func(f *fixture) ids {
		email := uniqueEmail("anon")
		c := f.consumer("email", email, "first_name", "Ada", "last_name", "Lovelace", "profilepicture", "https://img.example.com/a.png",
			"phone", "+4930123456", "country", "DE", "customCRM", map[string]any{"company": "Acme"}, "tags", []any{"vip"})
		return ids{"c": c, "email": email, "task": f.task("consumer", c), "note": f.note("consumers", c),
			"byConsumer": f.mailLog(c, email), "byAddress": f.mailLog("", email), "unrelated": f.mailLog(f.consumer(), "someone@example.com")}
	}
	anonymized := func(f *fixture) ids {
		v := given(f)
		r := f.P.Do("POST", "/crm/consumers/"+v["c"]+"/actions/anonymize", f.Admin, nil)
		require.Equal(f.T, 200, r.Status, "%s", r.Body)
		return v
	}
	alias := func(v ids) string { return "anonymized-" + v["c"] + "@anonymized.invalid" }
	apitest.Run(t, f, []scenario{
		{
			Name: "anonymize removes the personal data and churns the consumer", Given: given,
			Method: "POST", Path: "/crm/consumers/{c}/actions/anonymize", Status: 200, Events: []string{"consumers.anonymized"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.T, alias(v), p["email"])
				assert.Equal(f.T, "churned", p["_status"])
				assert.NotEmpty(f.T, p["anonymizedAt"])
				st := f.Stored("consumers", v["c"])
				assert.Equal(f.T, alias(v), st["email"])
				assert.Equal(f.T, "churned", st["_status"])
				for _, k := range personal {
					assert.NotContains(f.T, p, k, "answer")
					assert.NotContains(f.T, st, k, "store")
				}
				f.checkConsumerMeta(f.T, r, v["c"])
				assert.Equal(f.T, []string{"_id", "_status", "anonymizedAt"}, apitest.SortedKeys(f.Recorded[0].Data), "the event carries no personal data")
				assert.Equal(f.T, alias(v), f.Stored("maillogs", v["byConsumer"])["to"], "the mail history is redacted")
				assert.Equal(f.T, alias(v), f.Stored("maillogs", v["byAddress"])["to"], "mails matched by address only too")
				assert.Equal(f.T, "someone@example.com", f.Stored("maillogs", v["unrelated"])["to"])
				assert.Equal(f.T, v["c"], f.Stored("tasks", v["task"])["consumer"], "the history stays linked")
				assert.Equal(f.T, v["c"], f.Stored("notes", v["note"])["targetId"])
				assert.Equal(f.T, crm.NoteRemoved, f.Stored("notes", v["note"])["body"], "note text may hold personal data")
			},
		},
		{
			Name: "a second anonymize answers the same and records no event", Given: anonymized,
			Method: "POST", Path: "/crm/consumers/{c}/actions/anonymize", Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, alias(v), r.Payload()["email"])
				assert.Equal(f.T, "churned", r.Payload()["_status"])
			},
		},
		{Name: "an anonymized consumer cannot be changed", Given: anonymized, Method: "PATCH", Path: "/crm/consumers/{c}",
			Body: map[string]any{"first_name": "Ada"}, Status: 409, Codes: []string{"conflict.state"}},
		{Name: "an anonymized consumer cannot be replaced", Given: anonymized, Method: "PUT", Path: "/crm/consumers/{c}",
			Body: map[string]any{"email": "{email}"}, Status: 409, Codes: []string{"conflict.state"}},
		{Name: "the old address is free again", Given: anonymized, Method: "POST", Path: "/crm/consumers",
			Body: map[string]any{"email": "{email}"}, Status: 201, Events: []string{"consumers.created"}},
		{Name: "anonymize takes no body fields", Given: given, Method: "POST", Path: "/crm/consumers/{c}/actions/anonymize",
			Body: map[string]any{"reason": "GDPR"}, Status: 422, Codes: []string{"validation.unknown_field"}, Field: "reason"},
		{Name: "anonymize of no consumer", Method: "POST", Path: "/crm/consumers/0123456789abcdef01234567/actions/anonymize",
			Status: 404, Codes: []string{"resource.not_found"}},
	})
}

func TestMerge(t *testing.T) {
	f := newFixture(t)
	given := func(f *fixture) ids {
		m, k := f.consumer("first_name", "Dup"), f.consumer("first_name", "Keep")
		return ids{"m": m, "k": k, "mTask": f.task("consumer", m), "kTask": f.task("consumer", k),
			"mNote": f.note("consumers", m), "mMail": f.mailLog(m, "dup@example.com"), "third": f.consumer()}
	}
	merged := func(f *fixture) ids {
		v := given(f)
		r := f.P.Do("POST", "/crm/consumers/"+v["m"]+"/actions/merge", f.Admin, map[string]any{"keepId": v["k"]})
		require.Equal(f.T, 200, r.Status, "%s", r.Body)
		return v
	}
	keep := map[string]any{"keepId": "{k}"}
	invalid := func(name string, body any, code string) scenario {
		return scenario{Name: name, Given: given, Method: "POST", Path: "/crm/consumers/{m}/actions/merge", Body: body,
			Status: 422, Codes: []string{code}, Field: "keepId"}
	}
	apitest.Run(t, f, []scenario{
		{
			Name: "merge moves the history to keepId and removes the consumer", Given: given,
			Method: "POST", Path: "/crm/consumers/{m}/actions/merge", Body: keep, Status: 200, Events: []string{"consumers.merged"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, v["k"], r.Payload()["_id"], "the answer is the kept consumer")
				assert.Equal(f.T, "Keep", r.Payload()["displayName"])
				f.checkConsumerMeta(f.T, r, v["k"])
				assert.Nil(f.T, f.Stored("consumers", v["m"]), "the merged consumer is gone")
				assert.NotNil(f.T, f.Stored("consumers", v["k"]))
				assert.Equal(f.T, v["k"], f.Stored("tasks", v["mTask"])["consumer"])
				assert.Equal(f.T, v["k"], f.Stored("notes", v["mNote"])["targetId"])
				assert.Equal(f.T, v["k"], f.Stored("maillogs", v["mMail"])["consumer"])
				assert.Equal(f.T, v["k"], f.Recorded[0].Data["_id"])
				assert.Equal(f.T, v["m"], f.Recorded[0].Data["mergedId"])
				tasks := f.P.Do("GET", "/crm/consumers/"+v["k"]+"/tasks", f.Admin, nil)
				assert.ElementsMatch(f.T, []string{v["mTask"], v["kTask"]}, apitest.ListIDs(tasks))
				assert.Equal(f.T, http.StatusNotFound, f.P.Do("GET", "/crm/consumers/"+v["m"], f.Admin, nil).Status)
			},
		},
		{
			Name: "a retried merge answers 200 and records no second event", Given: merged,
			Method: "POST", Path: "/crm/consumers/{m}/actions/merge", Body: keep, Status: 200,
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, v["k"], r.Payload()["_id"]) },
		},
		{Name: "a retry naming another keepId finds no consumer", Given: merged, Method: "POST", Path: "/crm/consumers/{m}/actions/merge",
			Body: map[string]any{"keepId": "{third}"}, Status: 404, Codes: []string{"resource.not_found"}},
		{Name: "a consumer that never existed cannot be merged", Given: given, Method: "POST", Path: "/crm/consumers/0123456789abcdef01234567/actions/merge",
			Body: keep, Status: 404, Codes: []string{"resource.not_found"}},
		{Name: "a consumer that never existed cannot be merged into no consumer", Method: "POST",
			Path: "/crm/consumers/0123456789abcdef01234567/actions/merge", Body: map[string]any{"keepId": "0123456789abcdef01234568"},
			Status: 404, Codes: []string{"resource.not_found"}},
		invalid("keepId is required", map[string]any{}, "validation.required"),
		invalid("merge needs a body", nil, "validation.required"),
		invalid("keepId must be an id", map[string]any{"keepId": "keep"}, "validation.format"),
		invalid("keepId must name a consumer", map[string]any{"keepId": "0123456789abcdef01234567"}, "validation.invalid"),
		invalid("keepId must differ from the merged consumer", map[string]any{"keepId": "{m}"}, "validation.invalid"),
		{Name: "merge takes no other field", Given: given, Method: "POST", Path: "/crm/consumers/{m}/actions/merge",
			Body: map[string]any{"keepId": "{k}", "force": true}, Status: 422, Codes: []string{"validation.unknown_field"}, Field: "force"},
	})
}

// TestStatusMoves: a consumer is a lead until a task for it is done; a done
// task is left only by reopen.
func TestStatusMoves(t *testing.T) {
	f := newFixture(t)
	leadWithTask := func(status string) func(f *fixture) ids {
		return func(f *fixture) ids {
			c := f.consumer()
			return ids{"c": c, "task": f.task("consumer", c, "_status", status)}
		}
	}
	consumerStatus := func(want string) func(f *fixture, v ids, r *testenv.Resp) {
		return func(f *fixture, v ids, r *testenv.Resp) {
			assert.Equal(f.T, want, f.Stored("consumers", v["c"])["_status"])
		}
	}
	anonymizedWithTask := func(f *fixture) ids {
		v := leadWithTask("open")(f)
		require.Equal(f.T, 200, f.P.Do("POST", "/crm/consumers/"+v["c"]+"/actions/anonymize", f.Admin, nil).Status)
		return v
	}
	apitest.Run(t, f, []scenario{
		{Name: "a new consumer is a lead", Method: "POST", Path: "/crm/consumers", Body: map[string]any{"email": "lead@example.com"},
			Status: 201, Events: []string{"consumers.created"},
			Then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.T, "lead", r.Payload()["_status"]) }},
		{Name: "a task for a lead does not activate it", Given: func(f *fixture) ids { return ids{"c": f.consumer()} },
			Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "call", "consumer": "{c}"}, Status: 201,
			Events: []string{"tasks.created"}, Then: consumerStatus("lead")},
		{Name: "a lead becomes active when a task for it is done", Given: leadWithTask("in-progress"),
			Method: "PATCH", Path: "/crm/tasks/{task}", Body: map[string]any{"_status": "done"}, Status: 200,
			Events: []string{"tasks.updated", "consumers.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				consumerStatus("active")(f, v, r)
				for _, e := range f.Recorded {
					if e.Name == "consumers.updated" {
						assert.Equal(f.T, v["c"], e.Data["_id"])
						assert.Equal(f.T, "active", e.Data["_status"])
					}
				}
				got := f.P.Do("GET", "/crm/consumers/"+v["c"], f.Admin, nil)
				assert.Equal(f.T, "active", got.Payload()["_status"])
			}},
		{Name: "a task created done activates its lead", Given: func(f *fixture) ids { return ids{"c": f.consumer()} },
			Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "met", "consumer": "{c}", "_status": "done"}, Status: 201,
			Events: []string{"tasks.created", "consumers.updated"}, Then: consumerStatus("active")},
		{Name: "a task replaced as done activates its lead", Given: leadWithTask("open"),
			Method: "PUT", Path: "/crm/tasks/{task}", Body: map[string]any{"title": "met", "consumer": "{c}", "_status": "done"}, Status: 200,
			Events: []string{"tasks.updated", "consumers.updated"}, Then: consumerStatus("active")},
		{Name: "an active consumer stays active on its next done task", Given: func(f *fixture) ids {
			c := f.consumer()
			f.task("consumer", c, "_status", "done")
			return ids{"c": c, "task": f.task("consumer", c)}
		}, Method: "PATCH", Path: "/crm/tasks/{task}", Body: map[string]any{"_status": "done"}, Status: 200,
			Events: []string{"tasks.updated"}, Then: consumerStatus("active")},
		{Name: "a churned consumer stays churned", Given: anonymizedWithTask,
			Method: "PATCH", Path: "/crm/tasks/{task}", Body: map[string]any{"_status": "done"}, Status: 200,
			Events: []string{"tasks.updated"}, Then: consumerStatus("churned")},
		{Name: "in-progress may go back to open", Given: leadWithTask("in-progress"),
			Method: "PATCH", Path: "/crm/tasks/{task}", Body: map[string]any{"_status": "open"}, Status: 200, Events: []string{"tasks.updated"},
			Then: consumerStatus("lead")},
		{Name: "a done task cannot be patched open", Given: leadWithTask("done"),
			Method: "PATCH", Path: "/crm/tasks/{task}", Body: map[string]any{"_status": "open"}, Status: 409, Codes: []string{"conflict.state"}, Field: "_status"},
		{Name: "a done task cannot be replaced in progress", Given: leadWithTask("done"),
			Method: "PUT", Path: "/crm/tasks/{task}", Body: map[string]any{"title": "again", "_status": "in-progress"}, Status: 409, Codes: []string{"conflict.state"}},
		{Name: "a done task may still be edited while done", Given: leadWithTask("done"),
			Method: "PATCH", Path: "/crm/tasks/{task}", Body: map[string]any{"priority": "low"}, Status: 200, Events: []string{"tasks.updated"}},
		{Name: "reopen moves done back to open; the consumer stays active", Given: leadWithTask("done"),
			Method: "POST", Path: "/crm/tasks/{task}/actions/reopen", Status: 200, Events: []string{"tasks.reopened"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, "open", f.Stored("tasks", v["task"])["_status"])
				consumerStatus("active")(f, v, r)
			}},
		{Name: "reopen accepts an empty body", Given: leadWithTask("done"),
			Method: "POST", Path: "/crm/tasks/{task}/actions/reopen", Body: map[string]any{}, Status: 200, Events: []string{"tasks.reopened"}},
		{Name: "an open task cannot be reopened", Given: leadWithTask("open"),
			Method: "POST", Path: "/crm/tasks/{task}/actions/reopen", Status: 409, Codes: []string{"conflict.state"}},
		{Name: "an in-progress task cannot be reopened", Given: leadWithTask("in-progress"),
			Method: "POST", Path: "/crm/tasks/{task}/actions/reopen", Status: 409, Codes: []string{"conflict.state"}},
		{Name: "reopen takes no body fields", Given: leadWithTask("done"),
			Method: "POST", Path: "/crm/tasks/{task}/actions/reopen", Body: map[string]any{"reason": "x"}, Status: 422, Codes: []string{"validation.unknown_field"}},
	})
}

func TestAssign(t *testing.T) {
	f := newFixture(t)
	aTask := func(f *fixture) ids { return ids{"task": f.task(), "otherUser": f.OtherUser} }
	apitest.Run(t, f, []scenario{
		{Name: "assign sets the user", Given: aTask, Method: "POST", Path: "/crm/tasks/{task}/actions/assign",
			Body: map[string]any{"userId": "{user}"}, Status: 200, Events: []string{"tasks.assigned"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, f.P.Admin.ID, f.Stored("tasks", v["task"])["assignedTo"])
				assert.Equal(f.T, "open", f.Stored("tasks", v["task"])["_status"], "assigning does not move the status")
			}},
		{Name: "assign needs userId", Given: aTask, Method: "POST", Path: "/crm/tasks/{task}/actions/assign",
			Body: map[string]any{}, Status: 422, Codes: []string{"validation.required"}, Field: "userId"},
		{Name: "userId must be an id", Given: aTask, Method: "POST", Path: "/crm/tasks/{task}/actions/assign",
			Body: map[string]any{"userId": "admin"}, Status: 422, Codes: []string{"validation.format"}, Field: "userId"},
		{Name: "userId must name a user", Given: aTask, Method: "POST", Path: "/crm/tasks/{task}/actions/assign",
			Body: map[string]any{"userId": "0123456789abcdef01234567"}, Status: 422, Codes: []string{"validation.invalid"}, Field: "userId"},
		{Name: "userId must name a user of the same customer", Given: aTask, Method: "POST", Path: "/crm/tasks/{task}/actions/assign",
			Body: map[string]any{"userId": "{otherUser}"}, Status: 422, Codes: []string{"validation.invalid"}, Field: "userId"},
		{Name: "assign of no task", Method: "POST", Path: "/crm/tasks/0123456789abcdef01234567/actions/assign",
			Body: map[string]any{"userId": "{user}"}, Status: 404, Codes: []string{"resource.not_found"}},
	})
}

// TestNoteTargets: a note points at an existing record of the caller's
// customer that the caller may see.
func TestNoteTargets(t *testing.T) {
	f := newFixture(t)
	targets := func(f *fixture) ids {
		c := f.consumer()
		return ids{"c": c, "task": f.task(), "note": f.note("consumers", c), "bug": f.task("type", "Bug"), "bc": f.otherConsumer()}
	}
	note := func(targetType, targetID string) map[string]any {
		return map[string]any{"body": "x", "targetType": targetType, "targetId": targetID}
	}
	invalid := func(name string, body map[string]any, field string) scenario {
		return scenario{Name: name, Given: targets, Method: "POST", Path: "/crm/notes", Body: body, Status: 422, Codes: []string{"validation.invalid"}, Field: field}
	}
	created := func(name, targetType, targetID string) scenario {
		return scenario{Name: name, Given: targets, Method: "POST", Path: "/crm/notes", Body: note(targetType, targetID), Status: 201, Events: []string{"notes.created"}}
	}
	apitest.Run(t, f, []scenario{
		created("on a consumer", "consumers", "{c}"),
		created("on a task", "tasks", "{task}"),
		created("on a note", "notes", "{note}"),
		invalid("on no record", note("consumers", "0123456789abcdef01234567"), "targetId"),
		invalid("on a task id named as a consumer", note("consumers", "{task}"), "targetId"),
		invalid("on another customer's consumer", note("consumers", "{bc}"), "targetId"),
		invalid("on an unknown collection", note("widgets", "{c}"), "targetType"),
		{Name: "on a Bug task the caller may not see", Given: targets, Scopes: salesRights, Method: "POST", Path: "/crm/notes",
			Body: note("tasks", "{bug}"), Status: 422, Codes: []string{"validation.invalid"}, Field: "targetId"},
		{Name: "moved to no record", Given: targets, Method: "PATCH", Path: "/crm/notes/{note}", Body: map[string]any{"targetId": "0123456789abcdef01234567"},
			Status: 422, Codes: []string{"validation.invalid"}, Field: "targetId"},
		{Name: "moved to a task", Given: targets, Method: "PATCH", Path: "/crm/notes/{note}", Body: map[string]any{"targetType": "tasks", "targetId": "{task}"},
			Status: 200, Events: []string{"notes.updated"},
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.T, v["task"], f.Stored("notes", v["note"])["targetId"])
			}},
	})
}
