package crm_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/test/apitest"
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
		return scenario{Name: name, Method: "POST", Path: "/crm/consumers", Body: body, Status: 422, Codes: []string{code}, Field: field}
	}
	withEmail := func(k string, v any) map[string]any { return map[string]any{"email": uniqueEmail("v"), k: v} }
	oversize := `{"email":"big@example.com","customCRM":{"blob":"` + strings.Repeat("x", 1<<20) + `"}}`

	apitest.Run(t, f, []scenario{
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
			Name: "every failure of a body at once", Method: "POST", Path: "/crm/consumers",
			Body: map[string]any{"email": "nope", "phone": "1", "nickname": "x", "_status": "lead"}, Status: 422,
			Codes: []string{"validation.format", "validation.format", "validation.unknown_field", "validation.read_only"},
		},
		{Name: "a body over the size limit", Method: "POST", Path: "/crm/consumers", Body: oversize, Status: 413, Codes: []string{"request.too_large"}},
		{Name: "malformed JSON", Method: "POST", Path: "/crm/consumers", Body: `{"email": "ada@example.com"`, Status: 400, Codes: []string{"request.malformed"}},
		{Name: "JSON with a syntax error", Method: "POST", Path: "/crm/consumers", Body: `{"email" "ada@example.com"}`, Status: 400, Codes: []string{"request.malformed"}},
		{Name: "JSON that is not an object", Method: "POST", Path: "/crm/consumers", Body: `["ada@example.com"]`, Status: 400, Codes: []string{"request.malformed"}},
		{Name: "two JSON values", Method: "POST", Path: "/crm/consumers", Body: `{"email":"a@example.com"}{"email":"b@example.com"}`, Status: 400, Codes: []string{"request.malformed"}},
		{Name: "a body that is not JSON", Method: "POST", Path: "/crm/consumers", Body: `email=ada@example.com`,
			Header: []string{"Content-Type", "application/x-www-form-urlencoded"}, Status: 415, Codes: []string{"request.media_type"}},
		{Name: "a JSON body labelled text/plain", Method: "POST", Path: "/crm/consumers", Body: map[string]any{"email": "ada@example.com"},
			Header: []string{"Content-Type", "text/plain"}, Status: 415, Codes: []string{"request.media_type"}},
		{Name: "a JSON body without a content type", Method: "POST", Path: "/crm/consumers", Body: map[string]any{"email": "ada@example.com"},
			Header: []string{"Content-Type", ""}, Status: 415, Codes: []string{"request.media_type"}},

		// tasks and notes
		{Name: "a task priority outside the enum", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "x", "priority": "urgent"},
			Status: 422, Codes: []string{"validation.enum"}, Field: "priority"},
		{Name: "a task type outside the enum", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "x", "type": "Epic"},
			Status: 422, Codes: []string{"validation.enum"}, Field: "type"},
		{Name: "a task status outside the enum", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "x", "_status": "closed"},
			Status: 422, Codes: []string{"validation.enum"}, Field: "_status"},
		{Name: "a due date that is not a date", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "x", "dueDate": "next Friday"},
			Status: 422, Codes: []string{"validation.format"}, Field: "dueDate"},
		{Name: "a due date as a number", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "x", "dueDate": 20261201},
			Status: 422, Codes: []string{"validation.type"}, Field: "dueDate"},
		{Name: "a consumer reference that is not an id", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "x", "consumer": "ada"},
			Status: 422, Codes: []string{"validation.format"}, Field: "consumer"},
		{Name: "a consumer reference to no consumer", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": "x", "consumer": "0123456789abcdef01234567"},
			Status: 422, Codes: []string{"validation.invalid"}, Field: "consumer"},
		{Name: "a task without a title", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"priority": "low"},
			Status: 422, Codes: []string{"validation.required"}, Field: "title"},
		{Name: "a task with an empty title", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": ""},
			Status: 422, Codes: []string{"validation.required"}, Field: "title"},
		{Name: "a task with a title of blanks", Method: "POST", Path: "/crm/tasks", Body: map[string]any{"title": " \t\n "},
			Status: 422, Codes: []string{"validation.required"}, Field: "title"},
		{Name: "a note's pinned that is not a boolean", Given: aConsumer, Method: "POST", Path: "/crm/notes",
			Body: map[string]any{"body": "x", "targetType": "consumers", "targetId": "{id}", "pinned": "yes"}, Status: 422, Codes: []string{"validation.type"}, Field: "pinned"},
		{Name: "a note's targetId that is not an id", Method: "POST", Path: "/crm/notes",
			Body: map[string]any{"body": "x", "targetType": "consumers", "targetId": "ada"}, Status: 422, Codes: []string{"validation.format"}, Field: "targetId"},

		// updates
		{Name: "PATCH cannot remove a required field", Given: aConsumer, Method: "PATCH", Path: "/crm/consumers/{id}", Body: map[string]any{"email": nil},
			Status: 422, Codes: []string{"validation.required"}, Field: "email"},
		{Name: "PATCH cannot write _status", Given: aConsumer, Method: "PATCH", Path: "/crm/consumers/{id}", Body: map[string]any{"_status": "active"},
			Status: 422, Codes: []string{"validation.read_only"}, Field: "_status"},
		{Name: "PATCH rejects an unknown field", Given: aTask, Method: "PATCH", Path: "/crm/tasks/{id}", Body: map[string]any{"color": "red"},
			Status: 422, Codes: []string{"validation.unknown_field"}, Field: "color"},
		{Name: "PATCH checks formats", Given: aConsumer, Method: "PATCH", Path: "/crm/consumers/{id}", Body: map[string]any{"phone": "12"},
			Status: 422, Codes: []string{"validation.format"}, Field: "phone"},
		{Name: "PATCH with malformed JSON", Given: aNote, Method: "PATCH", Path: "/crm/notes/{id}", Body: `{"pinned":`, Status: 400, Codes: []string{"request.malformed"}},
		{Name: "PATCH with another content type", Given: aNote, Method: "PATCH", Path: "/crm/notes/{id}", Body: `pinned=true`,
			Header: []string{"Content-Type", "text/plain"}, Status: 415, Codes: []string{"request.media_type"}},
		{Name: "PATCH without a content type", Given: aNote, Method: "PATCH", Path: "/crm/notes/{id}", Body: `{"pinned":true}`,
			Header: []string{"Content-Type", ""}, Status: 415, Codes: []string{"request.media_type"}},
		{Name: "an action body without a content type", Given: aTask, Method: "POST", Path: "/crm/tasks/{id}/actions/assign", Body: `{"user":"{user}"}`,
			Header: []string{"Content-Type", ""}, Status: 415, Codes: []string{"request.media_type"}},
		{Name: "a body-less action needs no content type", Given: aTask, Method: "POST", Path: "/crm/tasks/{id}/actions/reopen",
			Status: 409, Codes: []string{"conflict.state"}},
		{Name: "a blank body without a content type is no body", Given: aTask, Method: "POST", Path: "/crm/tasks/{id}/actions/reopen", Body: " \n",
			Header: []string{"Content-Type", ""}, Status: 409, Codes: []string{"conflict.state"}},
		{Name: "PATCH cannot empty a required string", Given: aTask, Method: "PATCH", Path: "/crm/tasks/{id}", Body: map[string]any{"title": ""},
			Status: 422, Codes: []string{"validation.required"}, Field: "title"},
		{Name: "PUT cannot blank a required string", Given: aTask, Method: "PUT", Path: "/crm/tasks/{id}", Body: map[string]any{"title": "  "},
			Status: 422, Codes: []string{"validation.required"}, Field: "title"},
		{Name: "PUT without _id in the body", Given: aConsumer, Method: "PUT", Path: "/crm/consumers", Body: map[string]any{"email": "x@example.com"},
			Status: 422, Codes: []string{"validation.required"}, Field: "_id"},
		{Name: "PUT with a malformed _id in the body", Given: aConsumer, Method: "PUT", Path: "/crm/consumers", Body: map[string]any{"_id": "ada", "email": "x@example.com"},
			Status: 400, Codes: []string{"request.id"}},
		{Name: "PUT with an _id of no record", Method: "PUT", Path: "/crm/consumers", Body: map[string]any{"_id": "0123456789abcdef01234567", "email": "x@example.com"},
			Status: 404, Codes: []string{"resource.not_found"}},
		{Name: "PUT /:id with another _id in the body", Given: aConsumer, Method: "PUT", Path: "/crm/consumers/{id}",
			Body: map[string]any{"_id": "0123456789abcdef01234567", "email": "x@example.com"}, Status: 422, Codes: []string{"validation.invalid"}, Field: "_id"},
		{Name: "PUT /:id without a required field", Given: aTask, Method: "PUT", Path: "/crm/tasks/{id}", Body: map[string]any{"priority": "low"},
			Status: 422, Codes: []string{"validation.required"}, Field: "title"},

		// ids in the path
		{Name: "GET with a malformed id", Method: "GET", Path: "/crm/consumers/ada", Status: 400, Codes: []string{"request.id"}, Field: "id"},
		{Name: "GET with an id one character short", Method: "GET", Path: "/crm/tasks/0123456789abcdef0123456", Status: 400, Codes: []string{"request.id"}},
		{Name: "PATCH with a malformed id", Method: "PATCH", Path: "/crm/notes/xyz", Body: map[string]any{"pinned": true}, Status: 400, Codes: []string{"request.id"}},
		{Name: "DELETE with a malformed id", Method: "DELETE", Path: "/crm/consumers/not-an-id", Status: 400, Codes: []string{"request.id"}},
		{Name: "an action with a malformed id", Method: "POST", Path: "/crm/tasks/nope/actions/reopen", Status: 400, Codes: []string{"request.id"}},
		{Name: "a sub-resource with a malformed id", Method: "GET", Path: "/crm/consumers/nope/notes", Status: 400, Codes: []string{"request.id"}},
		{Name: "GET of no record", Method: "GET", Path: "/crm/consumers/0123456789abcdef01234567", Status: 404, Codes: []string{"resource.not_found"}},
		{Name: "DELETE of no record", Method: "DELETE", Path: "/crm/notes/0123456789abcdef01234567", Status: 404, Codes: []string{"resource.not_found"}},
		{Name: "an unknown action", Given: aTask, Method: "POST", Path: "/crm/tasks/{id}/actions/archive", Status: 404, Codes: []string{"resource.not_found"}},
		{Name: "an unknown route", Method: "GET", Path: "/crm/widgets", Status: 404, Codes: []string{"resource.not_found"}},
		{Name: "a method the route does not serve", Method: "PATCH", Path: "/crm/consumers", Body: map[string]any{}, Status: 405, Codes: []string{"request.method"}},
	})
}

// TestErrorsDoNotLeakInternals: an error answer names the problem, not the
// code or the driver behind it.
func TestErrorsDoNotLeakInternals(t *testing.T) {
	f := newFixture(t)
	apitest.Run(t, f, []scenario{
		{Name: "malformed JSON names the position only", Method: "POST", Path: "/crm/consumers", Body: `{"email": }`, Status: 400,
			Codes: []string{"request.malformed"}, Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.NotContains(f.T, string(r.Body), "encoding/json")
				assert.NotContains(f.T, string(r.Body), ".go:")
			}},
		{Name: "a duplicate names the field, not the index", Given: func(f *fixture) ids {
			f.create("consumers", map[string]any{"email": "dup@example.com"})
			return ids{}
		}, Method: "POST", Path: "/crm/consumers", Body: map[string]any{"email": "dup@example.com"}, Status: 409,
			Codes: []string{"conflict.duplicate"}, Field: "email", Then: func(f *fixture, v ids, r *testenv.Resp) {
				assert.NotContains(f.T, string(r.Body), "E11000")
				assert.NotContains(f.T, string(r.Body), "uniq_email")
			}},
	})
}
