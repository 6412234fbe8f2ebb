package api

import (
	"errors"
	"fmt"
	"net/http"

	"platform/kernel/store"
)

// ErrorEntry is one element of meta.errors.
type ErrorEntry struct {
	Code    string `json:"code" yaml:"code"`
	Message string `json:"message" yaml:"message"`
	Field   string `json:"field,omitempty" yaml:"field,omitempty"`
	// Line and Column locate a syntax error in submitted code (1-based).
	Line   int `json:"line,omitempty" yaml:"line,omitempty"`
	Column int `json:"column,omitempty" yaml:"column,omitempty"`
}

// Error is an answer other than success. Handlers return it (or any error:
// everything that is not an *Error becomes a 500 whose cause is only logged).
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
	return &Error{Status: status, Entries: []ErrorEntry{{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}}}
}

// WithCause keeps the underlying error for logs.
func (e *Error) WithCause(err error) *Error { e.Cause = err; return e }

// Machine codes of DESIGN §2.
const (
	CodeMalformed     = "request.malformed"
	CodeBadID         = "request.id"
	CodeBadQuery      = "request.query"
	CodeUnauthorized  = "auth.token"
	CodeScope         = "auth.scope"
	CodeNotFound      = "resource.not_found"
	CodeMethod        = "request.method"
	CodeDuplicate     = "conflict.duplicate"
	CodeConflict      = "conflict.state"
	CodeTooLarge      = "request.too_large"
	CodeTooDeep       = "request.too_deep" // JSON nested deeper than jsonlimit.MaxDepth
	CodeMediaType     = "request.media_type"
	CodeRequired      = "validation.required"
	CodeUnknownField  = "validation.unknown_field"
	CodeType          = "validation.type"
	CodeFormat        = "validation.format"
	CodeEnum          = "validation.enum"
	CodeReadOnly      = "validation.read_only"
	CodeInvalid       = "validation.invalid"
	CodeSyntax        = "validation.syntax" // submitted code does not compile (line, column)
	CodeRateLimit     = "rate_limit.exceeded"
	CodeInternal      = "internal"
	CodeUnavailable   = "dependency.unavailable"
	CodeInactive      = "module.inactive"
	CodeNotAcceptable = "request.not_acceptable"
)

// BadRequest is a 400.
func BadRequest(code, field, format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, code, field, format, args...)
}

// NotFound is a 404 for a record that does not exist for this customer.
func NotFound(what string) *Error {
	return NewError(http.StatusNotFound, CodeNotFound, "", "%s not found", what)
}

// Forbidden is a 403 naming the missing right.
func Forbidden(right string) *Error {
	return NewError(http.StatusForbidden, CodeScope, "", "the token's scope does not grant %q", right)
}

// Unauthorized is a 401 with the Bearer challenge.
func Unauthorized(msg string) *Error {
	e := NewError(http.StatusUnauthorized, CodeUnauthorized, "", "%s", msg)
	e.Header = http.Header{"WWW-Authenticate": {`Bearer realm="platform"`}}
	return e
}

// Invalid is a 422 with one entry per failing field.
func Invalid(entries ...ErrorEntry) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Entries: entries}
}

// FieldError is one validation failure.
func FieldError(code, field, format string, args ...any) ErrorEntry {
	return ErrorEntry{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// AsError turns any error into an answer; unknown errors become a 500.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	// Hooks and actions reach the store directly: an outage there is a
	// 503 as it is from the generic handlers, not an internal error.
	if errors.Is(err, store.ErrUnavailable) {
		return NewError(http.StatusServiceUnavailable, CodeUnavailable, "", "the store is unavailable").WithCause(err)
	}
	return &Error{Status: http.StatusInternalServerError, Cause: err,
		Entries: []ErrorEntry{{Code: CodeInternal, Message: "internal error; quote the debug id when reporting it"}}}
}
