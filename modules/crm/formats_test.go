package crm_test

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"platform/test/apitest"
	"platform/test/testenv"
)

// TestOutputFormats: JSON, YAML (by Accept and by ?format=) and CSV (header
// row, dotted nested fields) for a record, a list and an error.
func TestOutputFormats(t *testing.T) {
	f := newFixture(t)
	tok := f.Admin
	ada := f.consumer("email", "fmt-ada@example.com", "first_name", "Ada", "tags", []any{"vip", "b2b"},
		"customCRM", map[string]any{"company": "Acme", "address": map[string]any{"city": "London"}})
	f.consumer("email", "fmt-bob@example.com", "first_name", "=cmd()")
	record := "/crm/consumers/" + ada
	list := "/crm/consumers?sort=email"

	yamlOf := func(t *testing.T, r *testenv.Resp) map[string]any {
		t.Helper()
		assert.Equal(t, "application/yaml; charset=utf-8", r.Header.Get("Content-Type"))
		var env map[string]any
		require.NoError(t, yaml.Unmarshal(r.Body, &env), "%s", r.Body)
		meta, _ := env["meta"].(map[string]any)
		require.NotNil(t, meta, "%s", r.Body)
		assert.Equal(t, r.Header.Get("X-Debug-Id"), meta["debugId"])
		assert.Equal(t, r.Status, meta["code"])
		assert.Contains(t, meta, "rateLimit")
		return env
	}
	csvOf := func(t *testing.T, r *testenv.Resp) [][]string {
		t.Helper()
		assert.Equal(t, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
		rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		require.NoError(t, err, "%s", r.Body)
		require.NotEmpty(t, rows, "a header row")
		return rows
	}
	column := func(rows [][]string, name string) []string {
		var out []string
		for i, h := range rows[0] {
			if h == name {
				for _, row := range rows[1:] {
					out = append(out, row[i])
				}
			}
		}
		return out
	}

	t.Run("JSON is the default", func(t *testing.T) {
		r := f.P.For(t).Do("GET", record, tok, nil)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"))
		apitest.CheckEnvelope(t, r)
		r = f.P.For(t).Do("GET", record, tok, nil, "Accept", "application/json")
		assert.Equal(t, ada, r.Payload()["_id"])
	})
	t.Run("a record in YAML by Accept", func(t *testing.T) {
		r := f.P.For(t).Do("GET", record, tok, nil, "Accept", "application/yaml")
		require.Equal(t, 200, r.Status)
		env := yamlOf(t, r)
		p := env["payload"].(map[string]any)
		assert.Equal(t, "fmt-ada@example.com", p["email"])
		assert.Equal(t, "London", p["customCRM"].(map[string]any)["address"].(map[string]any)["city"])
		assert.Equal(t, "success", env["meta"].(map[string]any)["status"])
	})
	t.Run("a record in YAML by ?format=yaml, which wins over Accept", func(t *testing.T) {
		r := f.P.For(t).Do("GET", record+"?format=yaml", tok, nil, "Accept", "text/csv")
		require.Equal(t, 200, r.Status)
		assert.Equal(t, ada, yamlOf(t, r)["payload"].(map[string]any)["_id"])
	})
	t.Run("a list in YAML", func(t *testing.T) {
		r := f.P.For(t).Do("GET", list+"&format=yaml", tok, nil)
		require.Equal(t, 200, r.Status)
		env := yamlOf(t, r)
		assert.Len(t, env["payload"], 2)
		assert.Equal(t, 1, env["meta"].(map[string]any)["page"])
	})
	t.Run("a record in CSV with dotted nested fields", func(t *testing.T) {
		r := f.P.For(t).Do("GET", record, tok, nil, "Accept", "text/csv")
		require.Equal(t, 200, r.Status)
		rows := csvOf(t, r)
		require.Len(t, rows, 2, "a header row and the record")
		assert.Equal(t, "_id", rows[0][0], "the id leads")
		assert.Subset(t, rows[0], []string{"email", "first_name", "customCRM.company", "customCRM.address.city", "tags", "_status", "createdAt", "displayName"})
		assert.Equal(t, []string{ada}, column(rows, "_id"))
		assert.Equal(t, []string{"Acme"}, column(rows, "customCRM.company"))
		assert.Equal(t, []string{"London"}, column(rows, "customCRM.address.city"))
		assert.Equal(t, []string{"vip;b2b"}, column(rows, "tags"))
	})
	t.Run("a list in CSV by ?format=csv", func(t *testing.T) {
		r := f.P.For(t).Do("GET", list+"&format=csv", tok, nil)
		require.Equal(t, 200, r.Status)
		rows := csvOf(t, r)
		require.Len(t, rows, 3, "a header row and two records")
		assert.Equal(t, []string{"fmt-ada@example.com", "fmt-bob@example.com"}, column(rows, "email"))
		assert.Equal(t, []string{"Ada", "'=cmd()"}, column(rows, "first_name"), "a value a spreadsheet would run is defused")
		assert.Equal(t, []string{"Acme", ""}, column(rows, "customCRM.company"), "a record without the field has an empty cell")
	})
	t.Run("a projected list in CSV", func(t *testing.T) {
		r := f.P.For(t).Do("GET", list+"&fields=email&format=csv", tok, nil)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, []string{"_id", "email"}, csvOf(t, r)[0])
	})
	t.Run("an error in YAML", func(t *testing.T) {
		r := f.P.For(t).Do("GET", "/crm/consumers/nope", tok, nil, "Accept", "application/yaml")
		require.Equal(t, 400, r.Status)
		env := yamlOf(t, r)
		assert.Nil(t, env["payload"])
		assert.Equal(t, true, env["meta"].(map[string]any)["error"])
	})
	t.Run("an error in CSV", func(t *testing.T) {
		r := f.P.For(t).Do("GET", "/crm/consumers/0123456789abcdef01234567?format=csv", tok, nil)
		require.Equal(t, 404, r.Status)
		rows := csvOf(t, r)
		assert.Equal(t, []string{"code", "field", "message"}, rows[0])
		assert.Equal(t, "resource.not_found", rows[1][0])
	})
	t.Run("an unknown ?format is a 400 in JSON", func(t *testing.T) {
		r := f.P.For(t).Do("GET", record+"?format=xml", tok, nil)
		require.Equal(t, 400, r.Status)
		apitest.CheckEnvelope(t, r)
		assert.Equal(t, []string{"request.query"}, r.ErrorCodes())
	})
	t.Run("an Accept offering no format is a 406 in JSON", func(t *testing.T) {
		r := f.P.For(t).Do("GET", record, tok, nil, "Accept", "text/html")
		require.Equal(t, 406, r.Status)
		apitest.CheckEnvelope(t, r)
		assert.Equal(t, []string{"request.not_acceptable"}, r.ErrorCodes())
	})
	t.Run("Accept lists are read in order", func(t *testing.T) {
		r := f.P.For(t).Do("GET", record, tok, nil, "Accept", "text/html, application/yaml;q=0.9, */*;q=0.1")
		require.Equal(t, 200, r.Status)
		yamlOf(t, r)
	})
}
