package crm_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/resource"
)

// TestExampleFromTheSchemaIsAccepted builds a create body for each CRM
// resource from its published input schema alone, as Portman and client
// generators do (every property: its example, default or first enum value,
// else a value of its format, else one matching its pattern and lengths),
// and sends it: the schema must say what the server enforces, so the body
// is created (Portman's country XJ and phone +385 were answered 422).
func TestExampleFromTheSchemaIsAccepted(t *testing.T) {
	f := newFixture(t)
	schemas := publishedSchemas(t, f.P.URL+"/crm/openapi.json")
	consumer := f.consumer()
	// References name records of the customer: JSON Schema cannot say
	// which exist, so these come from the test.
	refs := map[string]any{"consumer": consumer, "assignedTo": f.P.Admin.ID, "targetType": "consumers", "targetId": consumer}
	t.Run("Portman's refused values are outside the schema", func(t *testing.T) {
		props := schemas["ConsumersInput"].(map[string]any)["properties"].(map[string]any)
		country := props["country"].(map[string]any)["enum"].([]any)
		require.Len(t, country, len(resource.CountryCodes()))
		require.Contains(t, country, "DE")
		require.NotContains(t, country, "XJ")
		require.NotRegexp(t, props["phone"].(map[string]any)["pattern"], "+385")
		require.Regexp(t, props["phone"].(map[string]any)["pattern"], "+989601", "the shortest valid number")
	})
	for _, plural := range []string{"consumers", "tasks", "notes"} {
		t.Run(plural, func(t *testing.T) {
			input := schemas[strings.ToUpper(plural[:1])+plural[1:]+"Input"].(map[string]any)
			body := map[string]any{}
			for name, prop := range input["properties"].(map[string]any) {
				if ref, ok := refs[name]; ok {
					body[name] = ref
					continue
				}
				body[name] = exampleOf(t, name, prop.(map[string]any))
			}
			r := f.P.For(t).Do("POST", "/crm/"+plural, f.Admin, body)
			require.Equal(t, 201, r.Status, "body %v: %s", body, r.Body)
		})
	}
}

func publishedSchemas(t *testing.T, url string) map[string]any {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(fetchDocument(t, url), &doc))
	return doc["components"].(map[string]any)["schemas"].(map[string]any)
}

// exampleOf makes a value from a property's schema alone.
func exampleOf(t *testing.T, name string, s map[string]any) any {
	t.Helper()
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	if d, ok := s["default"]; ok {
		return d
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch s["type"] {
	case "string":
		return stringExample(t, name, s)
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{exampleOf(t, name+"[]", s["items"].(map[string]any))}
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for n, p := range props {
			out[n] = exampleOf(t, name+"."+n, p.(map[string]any))
		}
		return out
	}
	t.Fatalf("%s: no example for schema %v", name, s)
	return nil
}

func stringExample(t *testing.T, name string, s map[string]any) string {
	t.Helper()
	switch s["format"] {
	case "email":
		return "example@example.com"
	case "uri":
		return "https://example.com/"
	case "date-time":
		return time.Now().UTC().Format(time.RFC3339)
	}
	min, _ := s["minLength"].(float64)
	v := strings.Repeat("x", max(int(min), 1))
	if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(v) {
		t.Fatalf("%s: the schema gives no example, and %q does not match its pattern %s", name, v, p)
	}
	return fmt.Sprint(v)
}
