package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"platform/kernel/resource"
	"platform/kernel/store"
)

// ErrorEntry is one element of meta.errors.
type ErrorEntry = resource.ErrorEntry

// Error is an answer other than success. Handlers return it, a
// *resource.Error (rendered by its kind) or any error (everything else
// becomes a 500 whose cause is only logged).
type Error struct {
	Status  int
	Entries []ErrorEntry
	Header  http.Header // extra response headers (Retry-After, WWW-Authenticate)
	Cause   error       // for logs only, never sent
}

func (e *Error) Error() string {
	msg := http.StatusText(e.Status)
	if len(e.Entries) > 0 {
		msg = e.Entries[0].Message
	}
	if e.Cause != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, msg, e.Cause)
	}
	return fmt.Sprintf("%d %s", e.Status, msg)
}

func (e *Error) Unwrap() error { return e.Cause }

// NewError builds an error answer with one entry.
func NewError(status int, code, field, format string, args ...any) *Error {
	return &Error{Status: status, Entries: []ErrorEntry{resource.FieldError(code, field, format, args...)}}
}

// WithCause keeps the underlying error for logs.
func (e *Error) WithCause(err error) *Error { e.Cause = err; return e }

// Machine codes of answers only HTTP gives (DESIGN §2); the codes of
// record operations are package resource's.
const (
	CodeUnauthorized  = "auth.token"
	CodeMethod        = "request.method"
	CodeTooLarge      = "request.too_large"
	CodeMediaType     = "request.media_type"
	CodeRateLimit     = "rate_limit.exceeded"
	CodeNotAcceptable = "request.not_acceptable"
)

// BadRequest is a 400.
func BadRequest(code, field, format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, code, field, format, args...)
}

// Forbidden is a 403 naming the missing right.
func Forbidden(right string) *Error { return fromResource(resource.Forbidden(right)) }

// Unauthorized is a 401 with the Bearer challenge.
func Unauthorized(msg string) *Error {
	e := NewError(http.StatusUnauthorized, CodeUnauthorized, "", "%s", msg)
	e.Header = http.Header{"WWW-Authenticate": {`Bearer realm="platform"`}}
	return e
}

// statusOf maps the kinds of record errors to HTTP statuses.
var statusOf = map[resource.Kind]int{
	resource.KindInternal:    http.StatusInternalServerError,
	resource.KindInvalid:     http.StatusUnprocessableEntity,
	resource.KindMalformed:   http.StatusBadRequest,
	resource.KindNotFound:    http.StatusNotFound,
	resource.KindConflict:    http.StatusConflict,
	resource.KindForbidden:   http.StatusForbidden,
	resource.KindUnavailable: http.StatusServiceUnavailable,
	resource.KindBadUpstream: http.StatusBadGateway,
}

func fromResource(re *resource.Error) *Error {
	e := &Error{Status: statusOf[re.Kind], Entries: re.Entries, Cause: re.Cause}
	if e.Cause == nil && e.Status >= 500 {
		e.Cause = re // the log line of a failure names what failed
	}
	if re.RetryAfter > 0 {
		secs := int((re.RetryAfter + 999_999_999) / 1e9)
		e.Header = http.Header{"Retry-After": {strconv.Itoa(secs)}}
	}
	return e
}

// AsError turns any error into an answer; unknown errors become a 500.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var re *resource.Error
	if errors.As(err, &re) {
		return fromResource(re)
	}
	// Hooks and actions reach the store directly: an outage there is a
	// 503 as it is from the generic handlers, not an internal error.
	if errors.Is(err, store.ErrUnavailable) {
		return NewError(http.StatusServiceUnavailable, resource.CodeUnavailable, "", "the store is unavailable").WithCause(err)
	}
	return &Error{Status: http.StatusInternalServerError, Cause: err,
		Entries: []ErrorEntry{{Code: resource.CodeInternal, Message: "internal error; quote the debug id when reporting it"}}}
}
