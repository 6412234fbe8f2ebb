// Package pipelines holds the activities of the PipelineRun and
// FireTrigger workflows: the run record (start, each step, the outcome),
// the steps with side effects or user code (http, db, notification,
// transform, function) and the launch of the runs a trigger firing starts.
package pipelines

import (
	"context"
	"log/slog"

	"platform/kernel/notify"
	"platform/kernel/outbound"
	"platform/kernel/store"
	"platform/modules/audit/trail"
	"platform/modules/automation/runs"
	"platform/sandbox"
)

// Activities are the pipeline activities with their dependencies. A nil
// dependency fails the steps that need it with a clear error instead of
// the worker failing to start.
type Activities struct {
	Store store.Store
	Log   *slog.Logger
	// Outbound guards the calls of http steps; nil refuses them all.
	Outbound *outbound.Guard
	Sandbox  Sandbox
	Secrets  SecretSource
	// Audit records each run's read of a credential; nil: steps read no secrets.
	Audit    trail.Writer
	Records  Records
	Notifier Notifier
	// MailLogs records the mail a notification step sends to consumers
	// (marketing's mail logs); nil records none.
	MailLogs MailLogs
	// Launcher starts the runs trigger firings start.
	Launcher Launcher
	// Aggregation counts each ended run in the pipeline statistics read
	// model (readmodel.Feed); nil: none.
	Aggregation RunFeed
	// StepLimit lowers the steps a run may execute below
	// contract.MaxExecutedSteps (tests of the limit); zero keeps it.
	StepLimit int
}

// Pipeline step dependencies, each the small interface the steps use.
type (
	// Sandbox runs user code in child processes (sandbox.Pool).
	Sandbox interface {
		Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error)
	}
	// SecretSource decrypts the named active credentials of the
	// customer, keyed by credential name (credentials.Vault).
	SecretSource interface {
		Secrets(ctx context.Context, st store.Store, names []string) (map[string]any, error)
	}
	// Records runs create/read/update/delete on a declared resource of the
	// customer in ctx through the record service, with the same validation,
	// hooks and events as the API (resource.Records).
	Records interface {
		Create(ctx context.Context, plural string, data map[string]any) (store.Doc, error)
		Get(ctx context.Context, plural, id string) (store.Doc, error)
		Find(ctx context.Context, plural string, filter map[string]any, limit int) ([]store.Doc, error)
		Update(ctx context.Context, plural, id string, data map[string]any) (store.Doc, error)
		Delete(ctx context.Context, plural, id string) (store.Doc, error)
	}
	// Notifier sends a notification step's message (notify.Router).
	Notifier interface {
		Send(ctx context.Context, m notify.Message) error
	}
	// MailLogs writes a mail log per recipient who is a consumer of the
	// customer in ctx: sent (failure empty) or failed for good
	// (maillog.Logs).
	MailLogs interface {
		LogMail(ctx context.Context, to []string, failure string) error
	}
	// Launcher writes a run record and starts its run (runs.Launcher).
	Launcher interface {
		Launch(ctx context.Context, in runs.Launch) (string, error)
	}
)
