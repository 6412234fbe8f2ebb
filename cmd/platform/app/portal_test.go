package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"gopkg.in/yaml.v3"

	"platform/test/testenv"
)

// get fetches path of the platform as a browser would (or with accept).
func get(t *testing.T, p *testenv.Platform, path, accept string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", accept)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(body)
}

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// requirePage checks an HTML answer: 200, no script anywhere (nor allowed
// by its policy), no framing, and every in-page link pointing at an id
// the page has.
func requirePage(t *testing.T, res *http.Response, body string) *html.Node {
	t.Helper()
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	csp := res.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'none'")
	assert.Contains(t, csp, "frame-ancestors 'none'")
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	doc, err := html.Parse(strings.NewReader(body))
	require.NoError(t, err)
	ids, anchors := map[string]bool{}, []string{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			assert.NotEqual(t, "script", n.Data, "no script element")
			for _, a := range n.Attr {
				assert.False(t, strings.HasPrefix(a.Key, "on"), "no event handler attribute: %s", a.Key)
				if a.Key == "id" {
					ids[a.Val] = true
				}
				if a.Key == "href" && strings.HasPrefix(a.Val, "#") {
					anchors = append(anchors, a.Val[1:])
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, a := range anchors {
		assert.True(t, ids[a], "the link #%s points at an id of the page", a)
	}
	return doc
}

// TestPagesForPeople: the landing page, the API reference and the docs
// (issue 30, item 9), on one platform.
func TestPagesForPeople(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	t.Run("landing page", func(t *testing.T) { landingPage(t, p) })
	t.Run("API reference", func(t *testing.T) { apiReference(t, p) })
	t.Run("docs", func(t *testing.T) { docsAreServed(t, p) })
}

// landingPage: GET / in a browser is a page of links: the console, the
// API documents and reference, the docs; an API client asking for JSON
// gets the same links as JSON.
func landingPage(t *testing.T, p *testenv.Platform) {
	res, body := get(t, p, "/", browserAccept)
	requirePage(t, res, body)
	for _, link := range []string{`href="` + p.Config.ConsoleURL() + `"`, `href="/reference"`, `href="/openapi.json"`,
		`href="/openapi.yaml"`, `href="/crm/openapi.json"`, `href="/docs/"`} {
		assert.Contains(t, body, link)
	}
	if ui := p.Config.TemporalUI(); ui != "" {
		assert.Contains(t, body, `href="`+ui+`"`)
	} else {
		assert.NotContains(t, body, "Temporal UI", "no link where no UI is known")
	}

	// Not on a host that is not the platform's (a customer's domain
	// pointed here before a page claims it).
	req, err := http.NewRequest(http.MethodGet, p.URL+"/", nil)
	require.NoError(t, err)
	req.Host = "www.unknown.test"
	other, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	other.Body.Close()
	assert.Equal(t, http.StatusNotFound, other.StatusCode)

	res, body = get(t, p, "/", "application/json")
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	var env struct {
		Payload struct {
			Sections []struct {
				Title string
				Links []struct{ Title, URL string }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &env))
	require.NotEmpty(t, env.Payload.Sections)
	assert.Equal(t, "Tools", env.Payload.Sections[0].Title)
}

// TestCombinedOpenAPI: /openapi.json and /openapi.yaml are one valid
// OpenAPI 3.1 document holding every operation of every module's own
// document under the module's gateway prefix.
func TestCombinedOpenAPI(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	// Parsed and validated against the OpenAPI 3.1 schema (by
	// pb33f/libopenapi, as every module's document): the costly part, so
	// the YAML form, the same document, is only compared.
	all := p.OpenAPI("/openapi.json")
	res, body := get(t, p, "/openapi.yaml", "")
	require.Equal(t, http.StatusOK, res.StatusCode)
	var fromYAML map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(body), &fromYAML))
	assert.Len(t, fromYAML["paths"], all.Paths.PathItems.Len(), "YAML and JSON hold the same")

	combined := roundTrip(t, p.API.OpenAPIAll())
	paths := combined["paths"].(map[string]any)
	total := 0
	for _, module := range p.API.ModuleNames() {
		doc := roundTrip(t, p.API.OpenAPIDocument(module))
		for path, item := range doc["paths"].(map[string]any) {
			total++
			got, ok := paths["/"+module+path].(map[string]any)
			if !assert.True(t, ok, "%s %s is in the combined document", module, path) {
				continue
			}
			for method, op := range item.(map[string]any) {
				assert.Equal(t, op.(map[string]any)["operationId"], got[method].(map[string]any)["operationId"], "%s %s %s", module, method, path)
			}
		}
	}
	assert.Equal(t, total, len(paths), "nothing but the modules' paths")
	assert.Equal(t, total, all.Paths.PathItems.Len())
}

// apiReference: /reference lists every module and /reference/<module>
// renders its operations and schemas from the OpenAPI document, without
// script and with working in-page links.
func apiReference(t *testing.T, p *testenv.Platform) {
	res, body := get(t, p, "/reference", browserAccept)
	requirePage(t, res, body)
	for _, m := range p.API.ModuleNames() {
		assert.Contains(t, body, `href="/reference/`+m+`"`)
	}
	res, body = get(t, p, "/reference/crm", browserAccept)
	requirePage(t, res, body)
	for _, want := range []string{`id="crm.consumers.create"`, `<code>/crm/consumers/{id}</code>`, `id="schema-ConsumersInput"`,
		"Needs the right <code>crm.consumers.create</code>", `id="schema-ErrorEnvelope"`} {
		assert.Contains(t, body, want)
	}
	res, _ = get(t, p, "/reference/nosuch", browserAccept)
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}

// docsAreServed: the guides the binary embeds render at /docs/.
func docsAreServed(t *testing.T, p *testenv.Platform) {
	res, body := get(t, p, "/docs/", browserAccept)
	requirePage(t, res, body)
	assert.Contains(t, body, `href="/docs/pipelines.md"`)
	res, body = get(t, p, "/docs/pipelines.md", browserAccept)
	requirePage(t, res, body)
	assert.Contains(t, body, "<table>", "GitHub tables render")
	for _, bad := range []string{"/docs/nosuch.md", "/docs/..%2Fgo.mod", "/docs/docs.go"} {
		res, _ = get(t, p, bad, browserAccept)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, bad)
	}
}
