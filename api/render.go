package api

import (
	"platform/kernel/resource"

	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"platform/kernel/obs"
)

// Keys of values the middleware leaves on gin's context.
const (
	keyStart     = "platform.start"
	keyRateLimit = "platform.ratelimit"
	keyModule    = "platform.module"
)

// BugReporter records an unexpected failure as a CRM task of type Bug.
type BugReporter interface {
	ReportBug(ctx context.Context, debugID, route string, cause error)
}

// adapt turns a HandlerFunc into a gin handler; it is the only place where
// successes and errors become HTTP answers.
func (s *Server) adapt(h HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx, warnings := resource.CollectWarnings(c.Request.Context())
		c.Request = c.Request.WithContext(ctx)
		resp, err := h(newRequest(c, s.cfg.MaxBodyBytes))
		if err != nil {
			s.renderError(c, err)
			return
		}
		s.renderOK(c, resp, warnings.List())
	}
}

func (s *Server) renderOK(c *gin.Context, resp *Response, warnings []ErrorEntry) {
	for k, v := range resp.Header {
		c.Writer.Header()[k] = v
	}
	if resp.Raw != nil {
		c.Data(orDefault(resp.Status, http.StatusOK), resp.ContentType, resp.Raw)
		return
	}
	status := orDefault(resp.Status, http.StatusOK)
	env := &Envelope{Payload: resp.Payload, Meta: s.meta(c, status)}
	env.Meta.Links = nonNil(resp.Links)
	env.Meta.Relations = nonNilRel(resp.Relations)
	env.Meta.Actions = nonNilAct(resp.Actions)
	env.Meta.Page, env.Meta.Limit, env.Meta.Total = resp.Page, resp.Limit, resp.Total
	env.Meta.TotalRelation = totalRelation(resp)
	env.Meta.Warnings = warnings
	s.write(c, status, env)
}

// renderError answers with the error envelope; the cause goes to the log only.
func (s *Server) renderError(c *gin.Context, err error) {
	ctx := c.Request.Context()
	e := answerFor(ctx, err)
	switch {
	case e.Cause == nil:
		// A deliberate answer (/readyz or a starting process saying 503):
		// nothing failed, and the request's log line has the status.
	case e.Status == StatusClientClosed:
		s.log.InfoContext(ctx, "client closed the request", "route", c.FullPath(), "error", e.Cause.Error())
	case e.Status >= 500:
		s.log.ErrorContext(ctx, "request failed", "status", e.Status, "route", c.FullPath(), "error", e.Cause.Error())
		if e.Status == http.StatusInternalServerError && s.bugs != nil {
			s.bugs.ReportBug(ctx, obs.DebugID(ctx), c.Request.Method+" "+c.FullPath(), e.Cause)
		}
	default:
		s.log.InfoContext(ctx, "request rejected", "status", e.Status, "error", e.Cause.Error())
	}
	for k, v := range e.Header {
		c.Writer.Header()[k] = v
	}
	env := &Envelope{Meta: s.meta(c, e.Status)}
	env.Meta.Error, env.Meta.Status, env.Meta.Errors = true, "error", e.Entries
	s.write(c, e.Status, env)
}

// StatusClientClosed is nginx's 499: the client hung up before the answer.
// It is logged and counted, never a server error: nothing failed here.
const StatusClientClosed = 499

// Machine codes of the answers answerFor gives.
const (
	CodeClientClosed = "request.closed"
	CodeTimeout      = "request.timeout"
	CodeDepTimeout   = "dependency.timeout"
)

// answerFor is the answer to err. Before AsError it tells apart what is
// not the server's fault or not an internal error: a client that hung up
// (the request's context was cancelled and that cancellation is what
// failed: 499, whatever the handler made of it), a body that did not
// arrive within the read time-out (408), and a deadline of our own that
// expired in a dependency call (504; our time-outs end in
// DeadlineExceeded, never in Canceled, so they are never taken for a
// hang-up).
func answerFor(ctx context.Context, err error) *Error {
	switch {
	case errors.Is(ctx.Err(), context.Canceled) && errors.Is(err, context.Canceled):
		return NewError(StatusClientClosed, CodeClientClosed, "", "the client closed the request").WithCause(err)
	case errors.Is(err, errBodyTimeout):
		return NewError(http.StatusRequestTimeout, CodeTimeout, "", "the request body did not arrive in time").WithCause(err)
	}
	e := AsError(err)
	if e.Status == http.StatusInternalServerError && errors.Is(err, context.DeadlineExceeded) {
		return NewError(http.StatusGatewayTimeout, CodeDepTimeout, "", "a dependency did not answer in time").WithCause(err)
	}
	return e
}

func (s *Server) write(c *gin.Context, status int, env *Envelope) {
	format, ferr := negotiate(c.Request)
	if ferr != nil && !env.Meta.Error {
		s.renderError(c, ferr)
		return
	}
	env.Meta.ResponseTime = elapsedMS(c)
	body, err := encode(format, env)
	if err != nil && !env.Meta.Error {
		// A payload that cannot be encoded is a bug: the 500 envelope, never
		// an empty body. An error envelope holds only strings and integers,
		// so its own encoding cannot fail and this does not recurse.
		s.renderError(c, fmt.Errorf("encode the answer as %s: %w", format, err))
		return
	}
	c.Data(status, formatTypes[format], body)
}

func (s *Server) meta(c *gin.Context, status int) Meta {
	m := Meta{
		Links: []Link{}, Relations: []RelationLink{}, Actions: []ActionLink{}, Errors: []resource.ErrorEntry{},
		DebugID: obs.DebugID(c.Request.Context()),
		Version: Version{Host: s.hostVersion(c), Core: CoreVersion},
		Code:    status, Status: "success",
	}
	if rl, ok := c.Get(keyRateLimit); ok {
		m.RateLimit = *rl.(*RateLimit)
	}
	return m
}

func (s *Server) hostVersion(c *gin.Context) string {
	if m, ok := c.Get(keyModule); ok {
		return m.(*Module).Version
	}
	return CoreVersion
}

func elapsedMS(c *gin.Context) float64 {
	if t, ok := c.Get(keyStart); ok {
		return float64(time.Since(t.(time.Time)).Microseconds()) / 1000
	}
	return 0
}

func orDefault(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

func nonNil(l []Link) []Link {
	if l == nil {
		return []Link{}
	}
	return l
}

func nonNilRel(l []RelationLink) []RelationLink {
	if l == nil {
		return []RelationLink{}
	}
	return l
}

func nonNilAct(l []ActionLink) []ActionLink {
	if l == nil {
		return []ActionLink{}
	}
	return l
}
