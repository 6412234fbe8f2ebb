// Package activities holds the side effects of workflows, as methods on a
// struct carrying their dependencies.
package activities

import (
	"log/slog"
	"time"

	"platform/kernel/outbound"
	"platform/kernel/store"
	"platform/modules/automation/runs"
)

// Activities are registered on the worker; workflows reference them as
// `var a *Activities; workflow.ExecuteActivity(ctx, a.Method, in)`.
type Activities struct {
	Store store.Store
	Log   *slog.Logger
	// Outbound guards calls to tenant URLs (webhooks, http steps); nil
	// refuses them all.
	Outbound *outbound.Guard
	// WebhookTimeout bounds one webhook delivery attempt.
	WebhookTimeout time.Duration

	// Pipeline steps. A nil dependency fails the steps that need it with a
	// clear error instead of the worker failing to start.
	Sandbox  Sandbox
	Secrets  SecretSource
	Records  Records
	Notifier Notifier
	// Launcher starts the runs events and schedules trigger.
	Launcher *runs.Launcher
	// Vault opens sealed webhook secrets; nil without a master key.
	Vault Sealer
}

// Sealer seals and opens secrets of one record of a customer
// (credentials.Vault).
type Sealer interface {
	Seal(customer, recordID string, plain map[string]any) (store.Doc, error)
	Open(customer, recordID string, sealed store.Doc) (map[string]any, error)
}
