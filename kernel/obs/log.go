// Package obs holds the platform's logging and metrics: JSON logs that carry
// the request's debug id on every line, and Prometheus collectors.
package obs

import (
	"context"
	"io"
	"log/slog"
	"strings"
)

type debugKey struct{}

// WithDebugID stores the request's debug id in ctx.
func WithDebugID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, debugKey{}, id)
}

// DebugID returns the debug id of ctx.
func DebugID(ctx context.Context) string {
	id, _ := ctx.Value(debugKey{}).(string)
	return id
}

// NewLogger returns a JSON logger at level that adds debugId from ctx.
func NewLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(strings.ToUpper(level)))
	return slog.New(&debugHandler{slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})})
}

type debugHandler struct{ slog.Handler }

func (h *debugHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := DebugID(ctx); id != "" {
		r.AddAttrs(slog.String("debugId", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h *debugHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return &debugHandler{h.Handler.WithAttrs(a)}
}

func (h *debugHandler) WithGroup(n string) slog.Handler { return &debugHandler{h.Handler.WithGroup(n)} }
