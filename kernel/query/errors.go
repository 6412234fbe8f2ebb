package query

import (
	"fmt"
	"strings"
)

// Error is a rejected filter. Field is the dotted path and Op the operator
// concerned, each empty when the problem is not about one; the API returns
// Error() to the client as a 400, so it names both.
type Error struct {
	Field   string
	Op      string
	Message string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("filter")
	if e.Field != "" {
		fmt.Fprintf(&b, " field %q", e.Field)
	}
	b.WriteString(": ")
	if e.Op != "" {
		fmt.Fprintf(&b, "operator %q ", e.Op)
	}
	b.WriteString(e.Message)
	return b.String()
}

func errorf(field, op, format string, args ...any) *Error {
	return &Error{Field: field, Op: op, Message: fmt.Sprintf(format, args...)}
}
