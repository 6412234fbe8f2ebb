package automation

import (
	"context"
	"time"

	"platform/kernel/resource"

	"platform/api"
	"platform/kernel/outbound"
	"platform/kernel/store"
	"platform/modules/automation/runs"
	"platform/sandbox"
)

// Deps are what the pipeline, trigger, function and run resources need
// beyond api.Service. A nil dependency makes the routes that need it
// answer 503 (a process without Temporal or without a sandbox).
type Deps struct {
	// Store serves the public webhook-trigger route (which has no
	// api.Service); Starter starts workflows there.
	Store   store.Store
	Starter resource.WorkflowStarter
	// Code runs and compiles user code (sandbox.Pool).
	Code CodeRunner
	// Launcher starts pipeline runs.
	Launcher *runs.Launcher
	// Runs cancels running pipeline runs.
	Runs RunCanceller
	// Schedules keeps each cron trigger's Temporal schedule in step with
	// its record.
	Schedules ScheduleSync
	// Records tells which collections db steps may use (resource.Records).
	Records RecordResources
	// GatewayURL is the public base address incoming-webhook URLs start with.
	GatewayURL string
	// HookLimiter limits the calls of each incoming-webhook URL.
	HookLimiter api.Limiter
	// Vault seals webhook secrets; nil without a master key.
	Vault Sealer
	// CronMinInterval is the shortest interval cron triggers may fire at
	// (PLATFORM_CRON_MIN_INTERVAL); 0 means pipeline.DefaultCronMinInterval.
	CronMinInterval time.Duration
	// Outbound tells which saved URLs calls will be refused at
	// (outbound.Guard); nil: no warnings.
	Outbound URLGuard
}

// URLGuard tells at save time that calls to a URL will be refused
// (outbound.Guard.Refusal).
type URLGuard interface {
	Refusal(rawURL string) error
}

// warnRefused adds a warning to the caller's answer when calls to rawURL
// (saved in field) will be refused: the record is saved (the operator may
// open the destination with PLATFORM_OUTBOUND_ALLOW), but not silently.
func (d Deps) warnRefused(ctx context.Context, field, rawURL string) {
	if d.Outbound == nil {
		return
	}
	if err := d.Outbound.Refusal(rawURL); err != nil {
		resource.Warn(ctx, resource.ErrorEntry{Code: CodeOutboundRefused, Field: field,
			Message: "saved, but calls to this URL will be " + outbound.Cause(err)})
	}
}

// CodeOutboundRefused is the code of the warning warnRefused adds.
const CodeOutboundRefused = "outbound.refused"

// Sealer seals the secrets of one record of a customer (credentials.Vault)
// and notes in the store that sealed values exist, so that no process
// starts with a key that cannot open them.
type Sealer interface {
	Seal(customer, recordID string, plain map[string]any) (store.Doc, error)
	NoteSealed(ctx context.Context, st store.Store) error
}

// CodeRunner runs and checks user code in the sandbox.
type CodeRunner interface {
	Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error)
	Compile(ctx context.Context, kind sandbox.Kind, code string) (*sandbox.Error, error)
}

// RunCanceller asks a running workflow to cancel.
type RunCanceller interface {
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
}

// ScheduleSync mirrors cron triggers into Temporal schedules.
type ScheduleSync interface {
	Sync(ctx context.Context, sc runs.Schedule, needed bool) error
}

// RecordResources resolves the collections db steps may use.
type RecordResources interface {
	Resource(plural string, write bool) (*resource.Resource, error)
}

func unavailable(what string) error {
	return resource.Unavailable("%s is unavailable in this process", what)
}
