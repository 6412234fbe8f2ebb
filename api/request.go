package api

import (
	"platform/kernel/resource"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"platform/kernel/auth"
	"platform/kernel/jsonlimit"
)

// Request is what a handler sees of an HTTP request: no *gin.Context, so
// handlers and everything below them work from plain values and ctx.
type Request struct {
	Ctx       context.Context
	Method    string
	Host      string // as the client sent it (host or host:port)
	Params    map[string]string
	Query     url.Values
	Principal *auth.Principal
	body      io.Reader
	header    http.Header
	maxBody   int64
	tail      string
	// format is the answer's format (formatJSON, formatYAML, formatCSV);
	// a format that cannot be served is answered when rendering.
	format string
	// report replaces the limit the answer reports (ReportRateLimit).
	report func(LimitInfo)
}

// Response is a successful answer before rendering.
type Response struct {
	Status    int
	Payload   any
	Links     []Link
	Relations []RelationLink
	Actions   []ActionLink
	Page      int
	Limit     int
	Total     *int64
	// TotalRelation says what Total is (resource.TotalExact, the
	// default, or resource.TotalAtLeast; docs/counts.md).
	TotalRelation string
	// Raw, when set, is written as is (OpenAPI documents, metrics).
	Raw         []byte
	ContentType string
	// Header holds extra response headers (Location, Cache-Control).
	Header http.Header
}

// Redirect is a 302 to target (a public service's redirect).
func Redirect(target string) *Response {
	return &Response{Status: http.StatusFound, Raw: []byte{}, ContentType: "text/plain; charset=utf-8",
		Header: http.Header{"Location": {target}, "Cache-Control": {"no-store"}}}
}

// HandlerFunc serves one route; errors are rendered in one place (render.go).
type HandlerFunc func(r *Request) (*Response, error)

// Param returns a path parameter.
func (r *Request) Param(name string) string { return r.Params[name] }

// Header returns a request header.
func (r *Request) Header(name string) string { return r.header.Get(name) }

// JSON decodes the body as one JSON object with numbers kept exact. It
// answers 415 for a body sent as another content type or as none, 413 past
// the size limit, 400 for malformed JSON (naming the position) and for JSON
// nested deeper than jsonlimit.MaxDepth, and 422 for a number a float64
// cannot hold (naming its path). A blank body is an empty object, with or
// without a content type (actions that take no body).
func (r *Request) JSON() (map[string]any, error) {
	data, err := r.Body()
	if err != nil {
		return nil, err
	}
	blank := len(bytes.TrimSpace(data)) == 0
	if err := checkMediaType(r.header.Get("Content-Type"), blank); err != nil {
		return nil, err
	}
	if blank {
		return map[string]any{}, nil
	}
	return decodeObject(data)
}

// Body reads the raw body (a form, a mail report), 413 past the size limit.
func (r *Request) Body() ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r.body, r.maxBody+1))
	if err != nil {
		return nil, BadRequest(resource.CodeMalformed, "", "could not read the request body").WithCause(err)
	}
	if int64(len(data)) > r.maxBody {
		return nil, NewError(http.StatusRequestEntityTooLarge, CodeTooLarge, "", "the body is larger than %d bytes", r.maxBody)
	}
	return data, nil
}

// BodyUpTo reads the raw body with a size limit of its own (a file upload
// or a bulk import, which may be larger than a JSON body), 413 past it.
func (r *Request) BodyUpTo(limit int64) ([]byte, error) {
	r.maxBody = limit
	return r.Body()
}

// Format is the answer's format negotiated from ?format= or Accept: json,
// yaml or csv (a route that writes a file of its own picks it by this).
func (r *Request) Format() string { return r.format }

// checkMediaType accepts JSON media types, and no content type only for a
// blank body: guessing the type of a body is what DESIGN §2's 415 rules out.
func checkMediaType(ct string, blank bool) error {
	if ct == "" && blank {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return NewError(http.StatusUnsupportedMediaType, CodeMediaType, "", "send the body as application/json (with that Content-Type)")
}

func decodeObject(data []byte) (map[string]any, error) {
	v, err := jsonlimit.Decode(data)
	if err != nil {
		return nil, jsonError(err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, BadRequest(resource.CodeMalformed, "", "the body must be a JSON object")
	}
	return obj, nil
}

func jsonError(err error) error {
	var syn *json.SyntaxError
	var refused *jsonlimit.Error
	switch {
	case errors.As(err, &refused) && refused.TooDeep:
		return BadRequest(resource.CodeTooDeep, "", "the body's %v", refused)
	case errors.As(err, &refused):
		return resource.Invalid(resource.FieldError(resource.CodeType, refused.Path, "field %q must be a finite number; this one is beyond the range of a 64-bit float", refused.Path))
	case errors.Is(err, jsonlimit.ErrTrailingData):
		return BadRequest(resource.CodeMalformed, "", "the body holds more than one JSON value")
	case errors.As(err, &syn):
		return BadRequest(resource.CodeMalformed, "", "malformed JSON at byte %d: %s", syn.Offset, syn.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return BadRequest(resource.CodeMalformed, "", "malformed JSON: the body ends too early")
	}
	return BadRequest(resource.CodeMalformed, "", "malformed JSON: %s", err.Error())
}

// newRequest builds a Request from gin's context.
func newRequest(c *gin.Context, maxBody int64) *Request {
	params := make(map[string]string, len(c.Params))
	for _, p := range c.Params {
		params[p.Key] = p.Value
	}
	return &Request{
		Ctx:       c.Request.Context(),
		Method:    c.Request.Method,
		Host:      c.Request.Host,
		Params:    params,
		Query:     c.Request.URL.Query(),
		Principal: auth.From(c.Request.Context()),
		body:      c.Request.Body,
		header:    c.Request.Header,
		maxBody:   maxBody,
		tail:      moduleTail(c.Request.URL.Path),
		format:    formatOf(c.Request),
		report:    func(d LimitInfo) { reportLimit(c, d) },
	}
}

// ReportRateLimit makes the answer report d in its X-RateLimit headers and
// meta.rateLimit: a public route with a limit of its own (an incoming
// webhook URL's) reports that one rather than the client address's.
func (r *Request) ReportRateLimit(d LimitInfo) {
	if r.report != nil {
		r.report(d)
	}
}

// pathTail is the request path below the module ("/consumers", "/consumers/:id/tasks").
func (r *Request) pathTail() string { return r.tail }

func moduleTail(path string) string {
	if i := strings.IndexByte(strings.TrimPrefix(path, "/"), '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

func formatOf(r *http.Request) string {
	f, _ := negotiate(r)
	return f
}
