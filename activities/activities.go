// Package activities holds the side effects of workflows, as methods on a
// struct carrying their dependencies.
package activities

import (
	"log/slog"

	"platform/store"
)

// Activities are registered on the worker; workflows reference them as
// `var a *Activities; workflow.ExecuteActivity(ctx, a.Method, in)`.
type Activities struct {
	Store store.Store
	Log   *slog.Logger
}
