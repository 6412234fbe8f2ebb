package crm_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/modules/crm"
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
		r := f.p.Do("POST", "/crm/consumers/"+v["c"]+"/actions/anonymize", f.admin, nil)
		require.Equal(f.t, 200, r.Status, "%s", r.Body)
		return v
	}
	alias := func(v ids) string { return "anonymized-" + v["c"] + "@anonymized.invalid" }
	run(t, f, []scenario{
		{
			name: "anonymize removes the personal data and churns the consumer", given: given,
			method: "POST", path: "/crm/consumers/{c}/actions/anonymize", status: 200, events: []string{"consumers.anonymized"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				p := r.Payload()
				assert.Equal(f.t, alias(v), p["email"])
				assert.Equal(f.t, "churned", p["_status"])
				assert.NotEmpty(f.t, p["anonymizedAt"])
				st := f.stored("consumers", v["c"])
				assert.Equal(f.t, alias(v), st["email"])
				assert.Equal(f.t, "churned", st["_status"])
				for _, k := range personal {
					assert.NotContains(f.t, p, k, "answer")
					assert.NotContains(f.t, st, k, "store")
				}
				f.checkConsumerMeta(f.t, r, v["c"])
				assert.Equal(f.t, []string{"_id", "_status", "anonymizedAt"}, sortedKeys(f.recorded[0].Data), "the event carries no personal data")
				assert.Equal(f.t, alias(v), f.stored("maillogs", v["byConsumer"])["to"], "the mail history is redacted")
				assert.Equal(f.t, alias(v), f.stored("maillogs", v["byAddress"])["to"], "mails matched by address only too")
				assert.Equal(f.t, "someone@example.com", f.stored("maillogs", v["unrelated"])["to"])
				assert.Equal(f.t, v["c"], f.stored("tasks", v["task"])["consumer"], "the history stays linked")
				assert.Equal(f.t, v["c"], f.stored("notes", v["note"])["targetId"])
				assert.Equal(f.t, crm.NoteRemoved, f.stored("notes", v["note"])["body"], "note text may hold personal data")
			},
		},
		{
			name: "a second anonymize answers the same and records no event", given: anonymized,
			method: "POST", path: "/crm/consumers/{c}/actions/anonymize", status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, alias(v), r.Payload()["email"])
				assert.Equal(f.t, "churned", r.Payload()["_status"])
			},
		},
		{name: "an anonymized consumer cannot be changed", given: anonymized, method: "PATCH", path: "/crm/consumers/{c}",
			body: map[string]any{"first_name": "Ada"}, status: 409, codes: []string{"conflict.state"}},
		{name: "an anonymized consumer cannot be replaced", given: anonymized, method: "PUT", path: "/crm/consumers/{c}",
			body: map[string]any{"email": "{email}"}, status: 409, codes: []string{"conflict.state"}},
		{name: "the old address is free again", given: anonymized, method: "POST", path: "/crm/consumers",
			body: map[string]any{"email": "{email}"}, status: 201, events: []string{"consumers.created"}},
		{name: "anonymize takes no body fields", given: given, method: "POST", path: "/crm/consumers/{c}/actions/anonymize",
			body: map[string]any{"reason": "GDPR"}, status: 422, codes: []string{"validation.unknown_field"}, field: "reason"},
		{name: "anonymize of no consumer", method: "POST", path: "/crm/consumers/0123456789abcdef01234567/actions/anonymize",
			status: 404, codes: []string{"resource.not_found"}},
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
		r := f.p.Do("POST", "/crm/consumers/"+v["m"]+"/actions/merge", f.admin, map[string]any{"keepId": v["k"]})
		require.Equal(f.t, 200, r.Status, "%s", r.Body)
		return v
	}
	keep := map[string]any{"keepId": "{k}"}
	invalid := func(name string, body any, code string) scenario {
		return scenario{name: name, given: given, method: "POST", path: "/crm/consumers/{m}/actions/merge", body: body,
			status: 422, codes: []string{code}, field: "keepId"}
	}
	run(t, f, []scenario{
		{
			name: "merge moves the history to keepId and removes the consumer", given: given,
			method: "POST", path: "/crm/consumers/{m}/actions/merge", body: keep, status: 200, events: []string{"consumers.merged"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, v["k"], r.Payload()["_id"], "the answer is the kept consumer")
				assert.Equal(f.t, "Keep", r.Payload()["displayName"])
				f.checkConsumerMeta(f.t, r, v["k"])
				assert.Nil(f.t, f.stored("consumers", v["m"]), "the merged consumer is gone")
				assert.NotNil(f.t, f.stored("consumers", v["k"]))
				assert.Equal(f.t, v["k"], f.stored("tasks", v["mTask"])["consumer"])
				assert.Equal(f.t, v["k"], f.stored("notes", v["mNote"])["targetId"])
				assert.Equal(f.t, v["k"], f.stored("maillogs", v["mMail"])["consumer"])
				assert.Equal(f.t, v["k"], f.recorded[0].Data["_id"])
				assert.Equal(f.t, v["m"], f.recorded[0].Data["mergedId"])
				tasks := f.p.Do("GET", "/crm/consumers/"+v["k"]+"/tasks", f.admin, nil)
				assert.ElementsMatch(f.t, []string{v["mTask"], v["kTask"]}, listIDs(tasks))
				assert.Equal(f.t, http.StatusNotFound, f.p.Do("GET", "/crm/consumers/"+v["m"], f.admin, nil).Status)
			},
		},
		{
			name: "a retried merge answers 200 and records no second event", given: merged,
			method: "POST", path: "/crm/consumers/{m}/actions/merge", body: keep, status: 200,
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, v["k"], r.Payload()["_id"]) },
		},
		{name: "a retry naming another keepId finds no consumer", given: merged, method: "POST", path: "/crm/consumers/{m}/actions/merge",
			body: map[string]any{"keepId": "{third}"}, status: 404, codes: []string{"resource.not_found"}},
		{name: "a consumer that never existed cannot be merged", given: given, method: "POST", path: "/crm/consumers/0123456789abcdef01234567/actions/merge",
			body: keep, status: 404, codes: []string{"resource.not_found"}},
		{name: "a consumer that never existed cannot be merged into no consumer", method: "POST",
			path: "/crm/consumers/0123456789abcdef01234567/actions/merge", body: map[string]any{"keepId": "0123456789abcdef01234568"},
			status: 404, codes: []string{"resource.not_found"}},
		invalid("keepId is required", map[string]any{}, "validation.required"),
		invalid("merge needs a body", nil, "validation.required"),
		invalid("keepId must be an id", map[string]any{"keepId": "keep"}, "validation.format"),
		invalid("keepId must name a consumer", map[string]any{"keepId": "0123456789abcdef01234567"}, "validation.invalid"),
		invalid("keepId must differ from the merged consumer", map[string]any{"keepId": "{m}"}, "validation.invalid"),
		{name: "merge takes no other field", given: given, method: "POST", path: "/crm/consumers/{m}/actions/merge",
			body: map[string]any{"keepId": "{k}", "force": true}, status: 422, codes: []string{"validation.unknown_field"}, field: "force"},
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
			assert.Equal(f.t, want, f.stored("consumers", v["c"])["_status"])
		}
	}
	anonymizedWithTask := func(f *fixture) ids {
		v := leadWithTask("open")(f)
		require.Equal(f.t, 200, f.p.Do("POST", "/crm/consumers/"+v["c"]+"/actions/anonymize", f.admin, nil).Status)
		return v
	}
	run(t, f, []scenario{
		{name: "a new consumer is a lead", method: "POST", path: "/crm/consumers", body: map[string]any{"email": "lead@example.com"},
			status: 201, events: []string{"consumers.created"},
			then: func(f *fixture, v ids, r *testenv.Resp) { assert.Equal(f.t, "lead", r.Payload()["_status"]) }},
		{name: "a task for a lead does not activate it", given: func(f *fixture) ids { return ids{"c": f.consumer()} },
			method: "POST", path: "/crm/tasks", body: map[string]any{"title": "call", "consumer": "{c}"}, status: 201,
			events: []string{"tasks.created"}, then: consumerStatus("lead")},
		{name: "a lead becomes active when a task for it is done", given: leadWithTask("in-progress"),
			method: "PATCH", path: "/crm/tasks/{task}", body: map[string]any{"_status": "done"}, status: 200,
			events: []string{"tasks.updated", "consumers.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				consumerStatus("active")(f, v, r)
				for _, e := range f.recorded {
					if e.Name == "consumers.updated" {
						assert.Equal(f.t, v["c"], e.Data["_id"])
						assert.Equal(f.t, "active", e.Data["_status"])
					}
				}
				got := f.p.Do("GET", "/crm/consumers/"+v["c"], f.admin, nil)
				assert.Equal(f.t, "active", got.Payload()["_status"])
			}},
		{name: "a task created done activates its lead", given: func(f *fixture) ids { return ids{"c": f.consumer()} },
			method: "POST", path: "/crm/tasks", body: map[string]any{"title": "met", "consumer": "{c}", "_status": "done"}, status: 201,
			events: []string{"tasks.created", "consumers.updated"}, then: consumerStatus("active")},
		{name: "a task replaced as done activates its lead", given: leadWithTask("open"),
			method: "PUT", path: "/crm/tasks/{task}", body: map[string]any{"title": "met", "consumer": "{c}", "_status": "done"}, status: 200,
			events: []string{"tasks.updated", "consumers.updated"}, then: consumerStatus("active")},
		{name: "an active consumer stays active on its next done task", given: func(f *fixture) ids {
			c := f.consumer()
			f.task("consumer", c, "_status", "done")
			return ids{"c": c, "task": f.task("consumer", c)}
		}, method: "PATCH", path: "/crm/tasks/{task}", body: map[string]any{"_status": "done"}, status: 200,
			events: []string{"tasks.updated"}, then: consumerStatus("active")},
		{name: "a churned consumer stays churned", given: anonymizedWithTask,
			method: "PATCH", path: "/crm/tasks/{task}", body: map[string]any{"_status": "done"}, status: 200,
			events: []string{"tasks.updated"}, then: consumerStatus("churned")},
		{name: "in-progress may go back to open", given: leadWithTask("in-progress"),
			method: "PATCH", path: "/crm/tasks/{task}", body: map[string]any{"_status": "open"}, status: 200, events: []string{"tasks.updated"},
			then: consumerStatus("lead")},
		{name: "a done task cannot be patched open", given: leadWithTask("done"),
			method: "PATCH", path: "/crm/tasks/{task}", body: map[string]any{"_status": "open"}, status: 409, codes: []string{"conflict.state"}, field: "_status"},
		{name: "a done task cannot be replaced in progress", given: leadWithTask("done"),
			method: "PUT", path: "/crm/tasks/{task}", body: map[string]any{"title": "again", "_status": "in-progress"}, status: 409, codes: []string{"conflict.state"}},
		{name: "a done task may still be edited while done", given: leadWithTask("done"),
			method: "PATCH", path: "/crm/tasks/{task}", body: map[string]any{"priority": "low"}, status: 200, events: []string{"tasks.updated"}},
		{name: "reopen moves done back to open; the consumer stays active", given: leadWithTask("done"),
			method: "POST", path: "/crm/tasks/{task}/actions/reopen", status: 200, events: []string{"tasks.reopened"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, "open", f.stored("tasks", v["task"])["_status"])
				consumerStatus("active")(f, v, r)
			}},
		{name: "reopen accepts an empty body", given: leadWithTask("done"),
			method: "POST", path: "/crm/tasks/{task}/actions/reopen", body: map[string]any{}, status: 200, events: []string{"tasks.reopened"}},
		{name: "an open task cannot be reopened", given: leadWithTask("open"),
			method: "POST", path: "/crm/tasks/{task}/actions/reopen", status: 409, codes: []string{"conflict.state"}},
		{name: "an in-progress task cannot be reopened", given: leadWithTask("in-progress"),
			method: "POST", path: "/crm/tasks/{task}/actions/reopen", status: 409, codes: []string{"conflict.state"}},
		{name: "reopen takes no body fields", given: leadWithTask("done"),
			method: "POST", path: "/crm/tasks/{task}/actions/reopen", body: map[string]any{"reason": "x"}, status: 422, codes: []string{"validation.unknown_field"}},
	})
}

func TestAssign(t *testing.T) {
	f := newFixture(t)
	aTask := func(f *fixture) ids { return ids{"task": f.task(), "otherUser": f.otherUser} }
	run(t, f, []scenario{
		{name: "assign sets the user", given: aTask, method: "POST", path: "/crm/tasks/{task}/actions/assign",
			body: map[string]any{"userId": "{user}"}, status: 200, events: []string{"tasks.assigned"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, f.p.Admin.ID, f.stored("tasks", v["task"])["assignedTo"])
				assert.Equal(f.t, "open", f.stored("tasks", v["task"])["_status"], "assigning does not move the status")
			}},
		{name: "assign needs userId", given: aTask, method: "POST", path: "/crm/tasks/{task}/actions/assign",
			body: map[string]any{}, status: 422, codes: []string{"validation.required"}, field: "userId"},
		{name: "userId must be an id", given: aTask, method: "POST", path: "/crm/tasks/{task}/actions/assign",
			body: map[string]any{"userId": "admin"}, status: 422, codes: []string{"validation.format"}, field: "userId"},
		{name: "userId must name a user", given: aTask, method: "POST", path: "/crm/tasks/{task}/actions/assign",
			body: map[string]any{"userId": "0123456789abcdef01234567"}, status: 422, codes: []string{"validation.invalid"}, field: "userId"},
		{name: "userId must name a user of the same customer", given: aTask, method: "POST", path: "/crm/tasks/{task}/actions/assign",
			body: map[string]any{"userId": "{otherUser}"}, status: 422, codes: []string{"validation.invalid"}, field: "userId"},
		{name: "assign of no task", method: "POST", path: "/crm/tasks/0123456789abcdef01234567/actions/assign",
			body: map[string]any{"userId": "{user}"}, status: 404, codes: []string{"resource.not_found"}},
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
		return scenario{name: name, given: targets, method: "POST", path: "/crm/notes", body: body, status: 422, codes: []string{"validation.invalid"}, field: field}
	}
	created := func(name, targetType, targetID string) scenario {
		return scenario{name: name, given: targets, method: "POST", path: "/crm/notes", body: note(targetType, targetID), status: 201, events: []string{"notes.created"}}
	}
	run(t, f, []scenario{
		created("on a consumer", "consumers", "{c}"),
		created("on a task", "tasks", "{task}"),
		created("on a note", "notes", "{note}"),
		invalid("on no record", note("consumers", "0123456789abcdef01234567"), "targetId"),
		invalid("on a task id named as a consumer", note("consumers", "{task}"), "targetId"),
		invalid("on another customer's consumer", note("consumers", "{bc}"), "targetId"),
		invalid("on an unknown collection", note("widgets", "{c}"), "targetType"),
		{name: "on a Bug task the caller may not see", given: targets, scopes: salesRights, method: "POST", path: "/crm/notes",
			body: note("tasks", "{bug}"), status: 422, codes: []string{"validation.invalid"}, field: "targetId"},
		{name: "moved to no record", given: targets, method: "PATCH", path: "/crm/notes/{note}", body: map[string]any{"targetId": "0123456789abcdef01234567"},
			status: 422, codes: []string{"validation.invalid"}, field: "targetId"},
		{name: "moved to a task", given: targets, method: "PATCH", path: "/crm/notes/{note}", body: map[string]any{"targetType": "tasks", "targetId": "{task}"},
			status: 200, events: []string{"notes.updated"},
			then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.Equal(f.t, v["task"], f.stored("notes", v["note"])["targetId"])
			}},
	})
}
