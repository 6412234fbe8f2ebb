package testenv

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The checker itself must be able to fail: these tests feed it answers that
// match and answers that do not, without a platform.

const thingsSpec = `{
  "openapi": "3.1.0",
  "info": {"title": "things", "version": "1.0.0"},
  "servers": [{"url": "http://things-api.example.test"}, {"url": "http://gw.example.test/things"}],
  "paths": {
    "/things": {
      "post": {
        "requestBody": {"required": true, "content": {"application/json": {"schema": {
          "type": "object", "required": ["name"], "additionalProperties": false,
          "properties": {"name": {"type": "string", "maxLength": 5}}}}}},
        "responses": {
          "201": {"description": "created", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}},
            "application/yaml": {"schema": {"$ref": "#/components/schemas/Envelope"}}}},
          "422": {"description": "invalid", "content": {"application/json": {"schema": {"type": "object", "required": ["error"]}}}}
        }
      }
    },
    "/things/{id}": {
      "get": {
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {
          "200": {"description": "ok", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}},
            "application/yaml": {"schema": {"$ref": "#/components/schemas/Envelope"}}}}
        }
      }
    }
  },
  "components": {"schemas": {"Envelope": {
    "type": "object", "required": ["payload"],
    "properties": {"payload": {"type": "object", "additionalProperties": false, "properties": {"n": {"type": "integer"}}}}
  }}}
}`

// recorder is a testing.TB that keeps what Errorf reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestParseOpenAPI(t *testing.T) {
	if _, _, err := ParseOpenAPI([]byte(thingsSpec)); err != nil {
		t.Fatalf("a valid document is refused: %v", err)
	}
	for name, spec := range map[string]string{
		"no info":                `{"openapi": "3.1.0", "paths": {}}`,
		"a bad path item":        `{"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "paths": {"/x": {"get": {"responses": "none"}}}}`,
		"a parameter without in": strings.Replace(thingsSpec, `"name": "id", "in": "path", `, `"name": "id", `, 1),
		"not OpenAPI":            `{"swagger": "1.0"}`,
		"not even a value":       `{`,
	} {
		if _, _, err := ParseOpenAPI([]byte(spec)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestOpenAPICheck(t *testing.T) {
	_, model, err := ParseOpenAPI([]byte(thingsSpec))
	if err != nil {
		t.Fatal(err)
	}
	c := &openAPICheck{module: "things", moduleHost: "things-api.example.test", gatewayURL: "http://gw.example.test", doc: newOpenAPIDoc(model)}
	json, yaml := "application/json; charset=utf-8", "application/yaml; charset=utf-8"
	for _, tc := range []struct {
		name          string
		method, url   string
		host          string
		reqBody       string
		status        int
		contentType   string
		resBody       string
		wantReported  bool
		wantMentioned string
	}{
		{name: "a matching answer", method: "GET", url: "/things/things/1", status: 200, contentType: json, resBody: `{"payload":{"n":1}}`},
		{name: "a wrong type", method: "GET", url: "/things/things/1", status: 200, contentType: json, resBody: `{"payload":{"n":"one"}}`, wantReported: true},
		{name: "an undeclared field", method: "GET", url: "/things/things/1", status: 200, contentType: json, resBody: `{"payload":{"m":1}}`, wantReported: true},
		{name: "a missing required field", method: "GET", url: "/things/things/1", status: 200, contentType: json, resBody: `{}`, wantReported: true},
		{name: "a wrong type in YAML", method: "GET", url: "/things/things/1", status: 200, contentType: yaml, resBody: "payload:\n  n: one\n", wantReported: true},
		{name: "a matching YAML answer", method: "GET", url: "/things/things/1", status: 200, contentType: yaml, resBody: "payload:\n  n: 1\n"},
		{name: "an undeclared status", method: "GET", url: "/things/things/1", status: 418, contentType: json, resBody: `{"payload":{}}`, wantReported: true, wantMentioned: "418"},
		{name: "the module host form is checked", method: "GET", url: "/things/1", host: "things-api.example.test", status: 200, contentType: json,
			resBody: `{"payload":{"n":"one"}}`, wantReported: true},
		{name: "an accepted request the document rejects", method: "POST", url: "/things/things", reqBody: `{"name":"too long"}`,
			status: 201, contentType: json, resBody: `{"payload":{}}`, wantReported: true, wantMentioned: "rejects the request"},
		{name: "an accepted request the document accepts", method: "POST", url: "/things/things", reqBody: `{"name":"ok"}`,
			status: 201, contentType: json, resBody: `{"payload":{}}`},
		{name: "a refused request is not held against the document", method: "POST", url: "/things/things", reqBody: `{"nom":"x"}`,
			status: 422, contentType: json, resBody: `{"error":true}`},
		{name: "a refused request's answer is still checked", method: "POST", url: "/things/things", reqBody: `{"nom":"x"}`,
			status: 422, contentType: json, resBody: `{"payload":null}`, wantReported: true},
		{name: "an undocumented route that answers", method: "GET", url: "/things/widgets", status: 200, contentType: json, resBody: `{}`,
			wantReported: true, wantMentioned: "no such operation"},
		{name: "an undocumented method that answers", method: "DELETE", url: "/things/things/1", status: 200, contentType: json, resBody: `{}`, wantReported: true},
		{name: "an undocumented route answered 404", method: "GET", url: "/things/widgets", status: 404, contentType: json, resBody: `{}`},
		{name: "an undocumented method answered 405", method: "DELETE", url: "/things/things/1", status: 405, contentType: json, resBody: `{}`},
		{name: "another module is none of its business", method: "GET", url: "/other/x", status: 200, contentType: json, resBody: `{}`},
		{name: "a module whose name only starts alike", method: "GET", url: "/thingsmore/x", status: 200, contentType: json, resBody: `{}`},
		{name: "the published document itself", method: "GET", url: "/things/openapi.json", status: 200, contentType: json, resBody: thingsSpec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, "http://gw.example.test"+tc.url, strings.NewReader(tc.reqBody))
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.reqBody != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			req.Header.Set("Authorization", "Bearer x")
			res := &http.Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {tc.contentType}}}
			rec := &recorder{}
			c.check(rec, req, []byte(tc.reqBody), res, []byte(tc.resBody))
			if got := len(rec.errs) > 0; got != tc.wantReported {
				t.Fatalf("reported %v, want %v: %v", got, tc.wantReported, rec.errs)
			}
			if tc.wantMentioned != "" && !strings.Contains(strings.Join(rec.errs, "\n"), tc.wantMentioned) {
				t.Errorf("the report does not mention %q: %v", tc.wantMentioned, rec.errs)
			}
		})
	}
}
