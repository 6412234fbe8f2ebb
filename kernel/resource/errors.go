package resource

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind says what went wrong with a record operation, in the platform's
// terms: the HTTP adapter maps it to a status, a workflow to a retry
// decision, and nobody sorts failures by HTTP status.
type Kind int

const (
	KindInternal    Kind = iota // a fault of the platform (500)
	KindInvalid                 // the data breaks a declared rule (422)
	KindMalformed               // the request cannot be read: a bad id, query or body (400)
	KindNotFound                // no such record for this customer (404)
	KindConflict                // the record's state or a unique value refuses the change (409)
	KindForbidden               // the caller lacks a right (403)
	KindUnavailable             // a dependency is down or busy; retry (503)
	KindBadUpstream             // a dependency answered something unusable (502)
)

var kindNames = [...]string{"internal", "invalid", "malformed", "not found", "conflict", "forbidden", "unavailable", "bad upstream"}

func (k Kind) String() string { return kindNames[k] }

// ErrorEntry is one thing wrong, with a stable machine code and the field it
// concerns (meta.errors of an API answer).
type ErrorEntry struct {
	Code    string `json:"code" yaml:"code"`
	Message string `json:"message" yaml:"message"`
	Field   string `json:"field,omitempty" yaml:"field,omitempty"`
	// Line and Column locate a syntax error in submitted code (1-based).
	Line   int `json:"line,omitempty" yaml:"line,omitempty"`
	Column int `json:"column,omitempty" yaml:"column,omitempty"`
}

// Error is a failed record operation. Cause is for logs only: it is never
// shown to the caller.
type Error struct {
	Kind    Kind
	Entries []ErrorEntry
	Cause   error
	// RetryAfter, when set, tells a caller of KindUnavailable when to retry.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	msg := e.Kind.String()
	if len(e.Entries) > 0 {
		msg = e.Entries[0].Message
	}
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind, msg, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Kind, msg)
}

func (e *Error) Unwrap() error { return e.Cause }

// WithCause keeps the underlying error for logs.
func (e *Error) WithCause(err error) *Error { e.Cause = err; return e }

// KindOf is the kind of err: the Kind of a *Error in its chain, else
// KindInternal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// Machine codes of the entries (DESIGN §2).
const (
	CodeMalformed    = "request.malformed"
	CodeBadID        = "request.id"
	CodeBadQuery     = "request.query"
	CodeTooDeep      = "request.too_deep" // JSON nested deeper than jsonlimit.MaxDepth
	CodeScope        = "auth.scope"
	CodeNotFound     = "resource.not_found"
	CodeInactive     = "module.inactive"
	CodeDuplicate    = "conflict.duplicate"
	CodeConflict     = "conflict.state"
	CodeRequired     = "validation.required"
	CodeUnknownField = "validation.unknown_field"
	CodeType         = "validation.type"
	CodeFormat       = "validation.format"
	CodeEnum         = "validation.enum"
	CodeRange        = "validation.range" // a number outside Range, an array outside MinItems..MaxItems
	CodeReadOnly     = "validation.read_only"
	CodeInvalid      = "validation.invalid"
	CodeSyntax       = "validation.syntax" // submitted code does not compile (line, column)
	CodeInternal     = "internal"
	CodeUnavailable  = "dependency.unavailable"
	CodeBadUpstream  = "dependency.bad_answer"
)

func newError(k Kind, code, field, format string, args ...any) *Error {
	return &Error{Kind: k, Entries: []ErrorEntry{FieldError(code, field, format, args...)}}
}

// FieldError is one validation failure.
func FieldError(code, field, format string, args ...any) ErrorEntry {
	return ErrorEntry{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Invalid is a validation failure with one entry per failing field.
func Invalid(entries ...ErrorEntry) *Error { return &Error{Kind: KindInvalid, Entries: entries} }

// InvalidField is a validation failure of one field.
func InvalidField(field, format string, args ...any) *Error {
	return newError(KindInvalid, CodeInvalid, field, format, args...)
}

// Malformed is input that cannot be read (a bad id, query or body).
func Malformed(code, field, format string, args ...any) *Error {
	return newError(KindMalformed, code, field, format, args...)
}

// NotFound is a record that does not exist for this customer.
func NotFound(what string) *Error {
	return newError(KindNotFound, CodeNotFound, "", "%s not found", what)
}

// Inactive is a route of a module the customer does not have.
func Inactive(format string, args ...any) *Error {
	return newError(KindNotFound, CodeInactive, "", format, args...)
}

// Conflict is a change the record's state refuses.
func Conflict(field, format string, args ...any) *Error {
	return newError(KindConflict, CodeConflict, field, format, args...)
}

// Forbidden names the right the caller lacks.
func Forbidden(right string) *Error {
	return newError(KindForbidden, CodeScope, "", "the token's scope does not grant %q", right)
}

// Unavailable is a dependency that is down or busy.
func Unavailable(format string, args ...any) *Error {
	return newError(KindUnavailable, CodeUnavailable, "", format, args...)
}

// BadUpstream is a dependency's answer the platform cannot use (a
// language model's blocks that break the declaration): nothing was
// stored, and the entries say what was wrong with the answer.
func BadUpstream(entries ...ErrorEntry) *Error {
	return &Error{Kind: KindBadUpstream, Entries: entries}
}

// Internal is a fault of the platform that has a description for the
// caller (most faults are plain errors, shown as "internal error").
func Internal(field, format string, args ...any) *Error {
	return newError(KindInternal, CodeInternal, field, format, args...)
}

// CallerFault returns, as one line ("field: message; ..."), the entries of
// an error its caller caused and can act on (invalid data, a missing
// record, a conflict, a missing right), and false for a fault of the
// platform or a dependency, whose text is for the logs.
func CallerFault(err error) (string, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Kind == KindInternal || e.Kind == KindUnavailable || e.Kind == KindBadUpstream {
		return "", false
	}
	parts := make([]string, 0, len(e.Entries))
	for _, en := range e.Entries {
		if en.Field != "" {
			parts = append(parts, en.Field+": "+en.Message)
		} else {
			parts = append(parts, en.Message)
		}
	}
	if len(parts) == 0 {
		return e.Kind.String(), true
	}
	return strings.Join(parts, "; "), true
}
