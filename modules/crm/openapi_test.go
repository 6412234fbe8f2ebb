package crm_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"platform/test/testenv"
)

// TestOpenAPIDocuments: the module's and each resource's descriptions are
// valid OpenAPI 3.1 (parsed and checked against the specification schema by
// libopenapi), in JSON and YAML alike, and describe every CRM route. That
// every answer matches them is checked on every call of the other tests
// (testenv.CheckOpenAPI).
func TestOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	fetch := func(t *testing.T, path string, header ...string) []byte {
		t.Helper()
		req, err := http.NewRequest("GET", p.URL+path, nil)
		require.NoError(t, err)
		for i := 0; i+1 < len(header); i += 2 {
			req.Host = header[i+1]
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		require.Equal(t, 200, res.StatusCode, "%s", body)
		return body
	}
	// decoded fetches a document as a map (JSON is YAML).
	decoded := func(t *testing.T, path string, header ...string) map[string]any {
		t.Helper()
		var m map[string]any
		require.NoError(t, yaml.Unmarshal(fetch(t, path, header...), &m))
		return m
	}
	// valid also parses and validates it (slow: once per distinct document).
	valid := func(t *testing.T, path string) map[string]any {
		t.Helper()
		doc, _, err := testenv.ParseOpenAPI(fetch(t, path))
		require.NoError(t, err, path)
		assert.Equal(t, "3.1.0", doc.GetVersion())
		return decoded(t, path)
	}
	pathsOf := func(doc map[string]any) []string {
		var out []string
		for k := range doc["paths"].(map[string]any) {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	operations := func(doc map[string]any, path string) []string {
		var out []string
		for k := range doc["paths"].(map[string]any)[path].(map[string]any) {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}

	t.Run("the module document describes every CRM route", func(t *testing.T) {
		doc := valid(t, "/crm/openapi.json")
		assert.Equal(t, []string{
			"/consumers", "/consumers/{id}", "/consumers/{id}/actions/anonymize", "/consumers/{id}/actions/merge",
			"/consumers/{id}/maillogs", "/consumers/{id}/notes", "/consumers/{id}/orders", "/consumers/{id}/tasks",
			"/notes", "/notes/{id}",
			"/tasks", "/tasks/{id}", "/tasks/{id}/actions/assign", "/tasks/{id}/actions/reopen",
		}, pathsOf(doc))
		for _, plural := range []string{"/consumers", "/tasks", "/notes"} {
			assert.Equal(t, []string{"get", "post", "put"}, operations(doc, plural), plural)
			assert.Equal(t, []string{"delete", "get", "patch", "put"}, operations(doc, plural+"/{id}"), plural)
		}
		servers, _ := json.Marshal(doc["servers"])
		assert.JSONEq(t, `[{"url":"http://crm-api.`+p.Config.PlatformDomain+`"},{"url":"`+p.URL+`/crm"}]`, string(servers))
	})
	t.Run("the module document in YAML is the same document", func(t *testing.T) {
		assert.Equal(t, decoded(t, "/crm/openapi.json"), valid(t, "/crm/openapi.yaml"))
	})
	t.Run("the module document on the module host", func(t *testing.T) {
		assert.Equal(t, decoded(t, "/crm/openapi.json"), decoded(t, "/openapi.json", "Host", "crm-api."+p.Config.PlatformDomain))
	})
	for _, plural := range []string{"consumers", "tasks", "notes"} {
		t.Run("the "+plural+" document", func(t *testing.T) {
			doc := valid(t, "/crm/"+plural+"/openapi.json")
			assert.Equal(t, doc, decoded(t, "/crm/"+plural+"/openapi.yaml"))
			for _, path := range pathsOf(doc) {
				assert.Regexp(t, "^/"+plural+"(/|$)", path, "only the resource's own paths")
			}
		})
	}
	t.Run("the marketing document", func(t *testing.T) {
		doc := valid(t, "/marketing/openapi.json")
		assert.Subset(t, pathsOf(doc), []string{"/inbound/mail", "/maillogs", "/maillogs/{id}", "/coupons", "/couponredemptions",
			"/references/{id}/copy", "/references/{id}/actions/copy"}, "mail logs, the mail provider's intake, coupons and references")
		assert.Equal(t, []string{"get"}, operations(doc, "/maillogs"), "mail logs are read-only")
	})
	t.Run("PUT /consumers names the record by _id", func(t *testing.T) {
		doc := decoded(t, "/crm/consumers/openapi.json")
		schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
		assert.Contains(t, schemas["ConsumersReplace"].(map[string]any)["properties"], "_id")
		assert.NotContains(t, schemas["ConsumersInput"].(map[string]any)["properties"], "_id", "a create cannot choose the id")
		assert.NotContains(t, schemas["ConsumersInput"].(map[string]any)["properties"], "_status", "the platform sets _status")
		assert.Equal(t, []any{"email"}, schemas["ConsumersInput"].(map[string]any)["required"])
	})
}
