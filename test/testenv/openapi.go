package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/config"
	valerrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/router"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// ParseOpenAPI parses an OpenAPI document (JSON or YAML), builds its model
// and validates it against the OpenAPI specification schema of its version.
// The error lists every problem found.
func ParseOpenAPI(spec []byte) (libopenapi.Document, *v3.Document, error) {
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("parse: %w", err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, nil, fmt.Errorf("build the model: %w", err)
	}
	if model == nil {
		return nil, nil, errors.New("build the model: no OpenAPI 3 model")
	}
	v := newLazyValidator(&model.Model)
	v.SetDocument(doc)
	if ok, verrs := v.ValidateDocument(); !ok {
		return nil, nil, fmt.Errorf("not a valid OpenAPI %s document:\n%s", doc.GetVersion(), describe(verrs))
	}
	return doc, &model.Model, nil
}

// OpenAPI fetches a published OpenAPI document (path relative to the
// gateway, e.g. "/crm/openapi.json") without authentication, and parses and
// validates it (ParseOpenAPI); any problem fails the test.
func (p *Platform) OpenAPI(path string) *v3.Document {
	p.t.Helper()
	_, model, err := ParseOpenAPI(p.fetchOpenAPI(path))
	if err != nil {
		p.t.Fatalf("GET %s: %v", path, err)
	}
	return model
}

func (p *Platform) fetchOpenAPI(path string) []byte {
	p.t.Helper()
	res, err := http.Get(p.URL + path)
	if err != nil {
		p.t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		p.t.Fatalf("GET %s: status %d: %s", path, res.StatusCode, body)
	}
	return body
}

// CheckOpenAPI makes every later Do of a route of module (gateway form
// /<module>/... or module host form) be checked against the module's
// published OpenAPI document (GET /<module>/openapi.json, itself validated
// first):
//   - every answer (JSON, and YAML too) must match the documented response
//     of its operation and status, including the error envelopes;
//   - a request the platform accepted (2xx) must be valid for the document
//     (parameters and body), so the document is never stricter than the API;
//   - a route missing from the document may only answer 404 or 405.
//
// Failures are reported with t.Errorf on the test that called Do.
func (p *Platform) CheckOpenAPI(module string) {
	p.t.Helper()
	m := p.API.Module(module)
	if m == nil {
		p.t.Fatalf("CheckOpenAPI: no module %q is mounted", module)
	}
	label := m.HostLabel
	// Platforms differ only in their addresses: a document is parsed and
	// validated once per test binary, with the addresses made neutral.
	spec := p.fetchOpenAPI("/" + module + "/openapi.json")
	spec = bytes.ReplaceAll(spec, []byte(p.URL), []byte(neutralGateway))
	spec = bytes.ReplaceAll(spec, []byte(p.Config.PlatformDomain), []byte(neutralDomain))
	openAPIDocs.Lock()
	defer openAPIDocs.Unlock()
	if openAPIDocs.m == nil {
		openAPIDocs.m = map[string]*openAPIDoc{}
	}
	doc := openAPIDocs.m[string(spec)]
	if doc == nil {
		_, model, err := ParseOpenAPI(spec)
		if err != nil {
			p.t.Fatalf("GET /%s/openapi.json: %v", module, err)
		}
		doc = newOpenAPIDoc(model)
		openAPIDocs.m[string(spec)] = doc
	}
	p.checks.add((&openAPICheck{module: module, moduleHost: label + "-api." + p.Config.PlatformDomain, gatewayURL: p.URL, doc: doc}).check)
}

const (
	neutralGateway = "http://gateway.invalid"
	neutralDomain  = "platform.invalid"
)

// openAPIDocs are the checked documents by their neutral text.
var openAPIDocs struct {
	sync.Mutex
	m map[string]*openAPIDoc
}

// openAPIDoc validates requests and answers against one document.
type openAPIDoc struct {
	mu        sync.Mutex // one validation at a time
	validator validator.Validator
	router    router.Router
}

func newOpenAPIDoc(model *v3.Document) *openAPIDoc {
	return &openAPIDoc{
		// The standard decoders let YAML answers be checked like JSON ones.
		validator: newLazyValidator(model, config.WithStandardBodyDecoders()),
		router:    router.NewRouter(model, router.WithPathOnlyMatching()),
	}
}

// newLazyValidator builds a validator that compiles a schema when a check
// first needs it. By default a validator compiles every schema of the
// document up front: about 5 s of CPU per module document under -race,
// paid twice per test binary (once for ValidateDocument), and mostly for
// schemas that no test of the binary calls. Each schema is checked the
// same way either way; the compiled ones are kept.
func newLazyValidator(model *v3.Document, opts ...config.Option) validator.Validator {
	schemas := &lazySchemaCache{SchemaCache: cache.NewDefaultCache()}
	schemas.building.Store(true)
	defer schemas.building.Store(false)
	return validator.NewValidatorFromV3Model(model, append(opts, config.WithSchemaCache(schemas))...)
}

// lazySchemaCache answers the validator's warm-up that every schema is
// already compiled, so it compiles none; once built, a miss is a miss and
// the validator compiles and stores the schema on first use.
type lazySchemaCache struct {
	cache.SchemaCache
	building atomic.Bool
}

func (c *lazySchemaCache) Load(key uint64) (*cache.SchemaCacheEntry, bool) {
	if c.building.Load() {
		return nil, true
	}
	return c.SchemaCache.Load(key)
}

// openAPICheck checks the calls of one platform to one module.
type openAPICheck struct {
	module     string
	moduleHost string // <label>-api.<domain>
	gatewayURL string
	doc        *openAPIDoc
}

// modulePath returns the request's path below the module, and whether the
// request addresses the module at all.
func (c *openAPICheck) modulePath(req *http.Request) (string, bool) {
	path := req.URL.Path
	if req.Host == c.moduleHost && !strings.HasPrefix(path, "/"+c.module+"/") {
		return path, true
	}
	if rest, ok := strings.CutPrefix(path, "/"+c.module); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
		return rest, true
	}
	return "", false
}

func (c *openAPICheck) check(t testing.TB, req *http.Request, reqBody []byte, res *http.Response, resBody []byte) {
	t.Helper()
	path, ok := c.modulePath(req)
	if !ok || strings.HasSuffix(path, "/openapi.json") || strings.HasSuffix(path, "/openapi.yaml") {
		return
	}
	// Validate in the gateway form, whichever form was used.
	vreq, err := http.NewRequest(req.Method, c.gatewayURL+"/"+c.module+path, bytes.NewReader(reqBody))
	if err != nil {
		t.Errorf("openapi check: %v", err)
		return
	}
	vreq.URL.RawQuery = req.URL.RawQuery
	vreq.Header = req.Header.Clone()
	what := fmt.Sprintf("%s %s answered %d", req.Method, req.URL.RequestURI(), res.StatusCode)

	c.doc.mu.Lock()
	defer c.doc.mu.Unlock()
	if _, err := c.doc.router.FindRoute(vreq); err != nil {
		if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("openapi: %s, but the %s document has no such operation (%v)", what, c.module, err)
		}
		return
	}
	vres := &http.Response{StatusCode: res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(resBody)), Request: vreq}
	if ok, errs := c.doc.validator.ValidateHttpResponse(vreq, vres); !ok {
		t.Errorf("openapi: %s, which does not match the %s document:\n%s\nbody: %s", what, c.module, describe(errs), clip(resBody))
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
		if ok, errs := c.doc.validator.ValidateHttpRequest(vreq); !ok {
			t.Errorf("openapi: %s, but the %s document rejects the request:\n%s\nrequest body: %s", what, c.module, describe(errs), clip(reqBody))
		}
	}
}

func describe(errs []*valerrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  - %s: %s", e.Message, e.Reason)
		for _, f := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n      %s (at %s)", f.Reason, f.FieldPath)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func clip(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
