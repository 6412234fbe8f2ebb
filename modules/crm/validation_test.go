package crm_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/test/testenv"
)

// Every way a body or a path can be refused. run asserts for each that no
// record of either customer changed and no event was recorded.

func TestRequestValidation(t *testing.T) {
	f := newFixture(t)
	aConsumer := func(f *fixture) ids { return ids{"id": f.consumer("first_name", "Ada")} }
	aTask := func(f *fixture) ids { return ids{"id": f.task()} }
	aNote := func(f *fixture) ids { c := f.consumer(); return ids{"c": c, "id": f.note("consumers", c)} }
	post := func(name string, body any, code, field string) scenario {
		return scenario{name: name, method: "POST", path: "/crm/consumers", body: body, status: 422, codes: []string{code}, field: field}
	}
	withEmail := func(k string, v any) map[string]any { return map[string]any{"email": uniqueEmail("v"), k: v} }
	oversize := `{"email":"big@example.com","customCRM":{"blob":"` + strings.Repeat("x", 1<<20) + `"}}`

	run(t, f, []scenario{
		post("a missing required field", map[string]any{"first_name": "Ada"}, "validation.required", "email"),
		post("a required field sent as null", map[string]any{"email": nil}, "validation.required", "email"),
		post("a string field sent as a number", map[string]any{"email": 42}, "validation.type", "email"),
		post("an e-mail address without @", withEmail("email", "ada.example.com"), "validation.format", "email"),
		post("an e-mail address without a domain dot", withEmail("email", "ada@localhost"), "validation.format", "email"),
		post("an e-mail address with a display name", withEmail("email", "Ada <ada@example.com>"), "validation.format", "email"),
		post("a phone number without +", withEmail("phone", "030123456"), "validation.format", "phone"),
		post("a phone number with spaces", withEmail("phone", "+49 30 123456"), "validation.format", "phone"),
		post("a phone number of no country", withEmail("phone", "+999123456"), "validation.format", "phone"),
		post("a country that is not ISO 3166 alpha-2", withEmail("country", "XX"), "validation.format", "country"),
		post("a country in lower case", withEmail("country", "de"), "validation.format", "country"),
		post("a country as a name", withEmail("country", "Germany"), "validation.format", "country"),
		post("a picture URL that is not a URL", withEmail("profilepicture", "ada.png"), "validation.format", "profilepicture"),
		post("a picture URL with another scheme", withEmail("profilepicture", "ftp://img.example.com/ada.png"), "validation.format", "profilepicture"),
		post("a string longer than declared", withEmail("first_name", strings.Repeat("a", 201)), "validation.invalid", "first_name"),
		post("tags that are not an array", withEmail("tags", "vip"), "validation.type", "tags"),
		post("a tag that is not a string", withEmail("tags", []any{"vip", 7}), "validation.type", "tags[1]"),
		post("customCRM that is not an object", withEmail("customCRM", "Acme"), "validation.type", "customCRM"),
		post("an unknown field", withEmail("nickname", "Ada"), "validation.unknown_field", "nickname"),
		post("the read-only _status", withEmail("_status", "active"), "validation.read_only", "_status"),
		post("the read-only createdAt", withEmail("createdAt", "2026-01-01T00:00:00Z"), "validation.read_only", "createdAt"),
		post("the read-only _id", withEmail("_id", "0123456789abcdef01234567"), "validation.read_only", "_id"),
		post("the read-only createdBy", withEmail("createdBy", "0123456789abcdef01234567"), "validation.read_only", "createdBy"),
		post("the virtual displayName", withEmail("displayName", "Ada"), "validation.read_only", "displayName"),
		post("the platform's anonymizedAt", withEmail("anonymizedAt", "2026-01-01T00:00:00Z"), "validation.read_only", "anonymizedAt"),
		{
			name: "every failure of a body at once", method: "POST", path: "/crm/consumers",
			body: map[string]any{"email": "nope", "phone": "1", "nickname": "x", "_status": "lead"}, status: 422,
			codes: []string{"validation.format", "validation.format", "validation.unknown_field", "validation.read_only"},
		},
		{name: "a body over the size limit", method: "POST", path: "/crm/consumers", body: oversize, status: 413, codes: []string{"request.too_large"}},
		{name: "malformed JSON", method: "POST", path: "/crm/consumers", body: `{"email": "ada@example.com"`, status: 400, codes: []string{"request.malformed"}},
		{name: "JSON with a syntax error", method: "POST", path: "/crm/consumers", body: `{"email" "ada@example.com"}`, status: 400, codes: []string{"request.malformed"}},
		{name: "JSON that is not an object", method: "POST", path: "/crm/consumers", body: `["ada@example.com"]`, status: 400, codes: []string{"request.malformed"}},
		{name: "two JSON values", method: "POST", path: "/crm/consumers", body: `{"email":"a@example.com"}{"email":"b@example.com"}`, status: 400, codes: []string{"request.malformed"}},
		{name: "a body that is not JSON", method: "POST", path: "/crm/consumers", body: `email=ada@example.com`,
			header: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 415, codes: []string{"request.media_type"}},
		{name: "a JSON body labelled text/plain", method: "POST", path: "/crm/consumers", body: map[string]any{"email": "ada@example.com"},
			header: []string{"Content-Type", "text/plain"}, status: 415, codes: []string{"request.media_type"}},
		{name: "a JSON body without a content type", method: "POST", path: "/crm/consumers", body: map[string]any{"email": "ada@example.com"},
			header: []string{"Content-Type", ""}, status: 415, codes: []string{"request.media_type"}},

		// tasks and notes
		{name: "a task priority outside the enum", method: "POST", path: "/crm/tasks", body: map[string]any{"title": "x", "priority": "urgent"},
			status: 422, codes: []string{"validation.enum"}, field: "priority"},
		{name: "a task type outside the enum", method: "POST", path: "/crm/tasks", body: map[string]any{"title": "x", "type": "Epic"},
			status: 422, codes: []string{"validation.enum"}, field: "type"},
		{name: "a task status outside the enum", method: "POST", path: "/crm/tasks", body: map[string]any{"title": "x", "_status": "closed"},
			status: 422, codes: []string{"validation.enum"}, field: "_status"},
		{name: "a due date that is not a date", method: "POST", path: "/crm/tasks", body: map[string]any{"title": "x", "dueDate": "next Friday"},
			status: 422, codes: []string{"validation.format"}, field: "dueDate"},
		{name: "a due date as a number", method: "POST", path: "/crm/tasks", body: map[string]any{"title": "x", "dueDate": 20261201},
			status: 422, codes: []string{"validation.type"}, field: "dueDate"},
		{name: "a consumer reference that is not an id", method: "POST", path: "/crm/tasks", body: map[string]any{"title": "x", "consumer": "ada"},
			status: 422, codes: []string{"validation.format"}, field: "consumer"},
		{name: "a consumer reference to no consumer", method: "POST", path: "/crm/tasks", body: map[string]any{"title": "x", "consumer": "0123456789abcdef01234567"},
			status: 422, codes: []string{"validation.invalid"}, field: "consumer"},
		{name: "a task without a title", method: "POST", path: "/crm/tasks", body: map[string]any{"priority": "low"},
			status: 422, codes: []string{"validation.required"}, field: "title"},
		{name: "a task with an empty title", method: "POST", path: "/crm/tasks", body: map[string]any{"title": ""},
			status: 422, codes: []string{"validation.required"}, field: "title"},
		{name: "a task with a title of blanks", method: "POST", path: "/crm/tasks", body: map[string]any{"title": " \t\n "},
			status: 422, codes: []string{"validation.required"}, field: "title"},
		{name: "a note's pinned that is not a boolean", given: aConsumer, method: "POST", path: "/crm/notes",
			body: map[string]any{"body": "x", "targetType": "consumers", "targetId": "{id}", "pinned": "yes"}, status: 422, codes: []string{"validation.type"}, field: "pinned"},
		{name: "a note's targetId that is not an id", method: "POST", path: "/crm/notes",
			body: map[string]any{"body": "x", "targetType": "consumers", "targetId": "ada"}, status: 422, codes: []string{"validation.format"}, field: "targetId"},

		// updates
		{name: "PATCH cannot remove a required field", given: aConsumer, method: "PATCH", path: "/crm/consumers/{id}", body: map[string]any{"email": nil},
			status: 422, codes: []string{"validation.required"}, field: "email"},
		{name: "PATCH cannot write _status", given: aConsumer, method: "PATCH", path: "/crm/consumers/{id}", body: map[string]any{"_status": "active"},
			status: 422, codes: []string{"validation.read_only"}, field: "_status"},
		{name: "PATCH rejects an unknown field", given: aTask, method: "PATCH", path: "/crm/tasks/{id}", body: map[string]any{"color": "red"},
			status: 422, codes: []string{"validation.unknown_field"}, field: "color"},
		{name: "PATCH checks formats", given: aConsumer, method: "PATCH", path: "/crm/consumers/{id}", body: map[string]any{"phone": "12"},
			status: 422, codes: []string{"validation.format"}, field: "phone"},
		{name: "PATCH with malformed JSON", given: aNote, method: "PATCH", path: "/crm/notes/{id}", body: `{"pinned":`, status: 400, codes: []string{"request.malformed"}},
		{name: "PATCH with another content type", given: aNote, method: "PATCH", path: "/crm/notes/{id}", body: `pinned=true`,
			header: []string{"Content-Type", "text/plain"}, status: 415, codes: []string{"request.media_type"}},
		{name: "PATCH without a content type", given: aNote, method: "PATCH", path: "/crm/notes/{id}", body: `{"pinned":true}`,
			header: []string{"Content-Type", ""}, status: 415, codes: []string{"request.media_type"}},
		{name: "an action body without a content type", given: aTask, method: "POST", path: "/crm/tasks/{id}/actions/assign", body: `{"user":"{user}"}`,
			header: []string{"Content-Type", ""}, status: 415, codes: []string{"request.media_type"}},
		{name: "a body-less action needs no content type", given: aTask, method: "POST", path: "/crm/tasks/{id}/actions/reopen",
			status: 409, codes: []string{"conflict.state"}},
		{name: "a blank body without a content type is no body", given: aTask, method: "POST", path: "/crm/tasks/{id}/actions/reopen", body: " \n",
			header: []string{"Content-Type", ""}, status: 409, codes: []string{"conflict.state"}},
		{name: "PATCH cannot empty a required string", given: aTask, method: "PATCH", path: "/crm/tasks/{id}", body: map[string]any{"title": ""},
			status: 422, codes: []string{"validation.required"}, field: "title"},
		{name: "PUT cannot blank a required string", given: aTask, method: "PUT", path: "/crm/tasks/{id}", body: map[string]any{"title": "  "},
			status: 422, codes: []string{"validation.required"}, field: "title"},
		{name: "PUT without _id in the body", given: aConsumer, method: "PUT", path: "/crm/consumers", body: map[string]any{"email": "x@example.com"},
			status: 422, codes: []string{"validation.required"}, field: "_id"},
		{name: "PUT with a malformed _id in the body", given: aConsumer, method: "PUT", path: "/crm/consumers", body: map[string]any{"_id": "ada", "email": "x@example.com"},
			status: 400, codes: []string{"request.id"}},
		{name: "PUT with an _id of no record", method: "PUT", path: "/crm/consumers", body: map[string]any{"_id": "0123456789abcdef01234567", "email": "x@example.com"},
			status: 404, codes: []string{"resource.not_found"}},
		{name: "PUT /:id with another _id in the body", given: aConsumer, method: "PUT", path: "/crm/consumers/{id}",
			body: map[string]any{"_id": "0123456789abcdef01234567", "email": "x@example.com"}, status: 422, codes: []string{"validation.invalid"}, field: "_id"},
		{name: "PUT /:id without a required field", given: aTask, method: "PUT", path: "/crm/tasks/{id}", body: map[string]any{"priority": "low"},
			status: 422, codes: []string{"validation.required"}, field: "title"},

		// ids in the path
		{name: "GET with a malformed id", method: "GET", path: "/crm/consumers/ada", status: 400, codes: []string{"request.id"}, field: "id"},
		{name: "GET with an id one character short", method: "GET", path: "/crm/tasks/0123456789abcdef0123456", status: 400, codes: []string{"request.id"}},
		{name: "PATCH with a malformed id", method: "PATCH", path: "/crm/notes/xyz", body: map[string]any{"pinned": true}, status: 400, codes: []string{"request.id"}},
		{name: "DELETE with a malformed id", method: "DELETE", path: "/crm/consumers/not-an-id", status: 400, codes: []string{"request.id"}},
		{name: "an action with a malformed id", method: "POST", path: "/crm/tasks/nope/actions/reopen", status: 400, codes: []string{"request.id"}},
		{name: "a sub-resource with a malformed id", method: "GET", path: "/crm/consumers/nope/notes", status: 400, codes: []string{"request.id"}},
		{name: "GET of no record", method: "GET", path: "/crm/consumers/0123456789abcdef01234567", status: 404, codes: []string{"resource.not_found"}},
		{name: "DELETE of no record", method: "DELETE", path: "/crm/notes/0123456789abcdef01234567", status: 404, codes: []string{"resource.not_found"}},
		{name: "an unknown action", given: aTask, method: "POST", path: "/crm/tasks/{id}/actions/archive", status: 404, codes: []string{"resource.not_found"}},
		{name: "an unknown route", method: "GET", path: "/crm/widgets", status: 404, codes: []string{"resource.not_found"}},
		{name: "a method the route does not serve", method: "PATCH", path: "/crm/consumers", body: map[string]any{}, status: 405, codes: []string{"request.method"}},
	})
}

// TestErrorsDoNotLeakInternals: an error answer names the problem, not the
// code or the driver behind it.
func TestErrorsDoNotLeakInternals(t *testing.T) {
	f := newFixture(t)
	run(t, f, []scenario{
		{name: "malformed JSON names the position only", method: "POST", path: "/crm/consumers", body: `{"email": }`, status: 400,
			codes: []string{"request.malformed"}, then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.NotContains(f.t, string(r.Body), "encoding/json")
				assert.NotContains(f.t, string(r.Body), ".go:")
			}},
		{name: "a duplicate names the field, not the index", given: func(f *fixture) ids {
			f.create("consumers", map[string]any{"email": "dup@example.com"})
			return ids{}
		}, method: "POST", path: "/crm/consumers", body: map[string]any{"email": "dup@example.com"}, status: 409,
			codes: []string{"conflict.duplicate"}, field: "email", then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.NotContains(f.t, string(r.Body), "E11000")
				assert.NotContains(f.t, string(r.Body), "uniq_email")
			}},
	})
}
