package app

import (
	"os"
	"time"

	"platform/activities/delivery"
	pipelineacts "platform/activities/pipelines"
	"platform/api"
	"platform/kernel/notify"
	"platform/kernel/ratelimit"
	"platform/kernel/resource"
	"platform/kernel/temporalx"
	"platform/modules/automation"
	"platform/modules/automation/runs"
	"platform/modules/config/credentials"
	"platform/modules/marketing/maillog"
	"platform/sandbox"
)

// DataModules are the modules whose collections pipeline db steps may use.
var DataModules = []string{"crm", "marketing"}

var (
	_ api.Limiter               = (*ratelimit.Limiter)(nil)
	_ pipelineacts.Records      = (*resource.Records)(nil)
	_ pipelineacts.Sandbox      = (*sandbox.Lazy)(nil)
	_ pipelineacts.SecretSource = (*credentials.Vault)(nil)
	_ pipelineacts.Notifier     = (*notify.Router)(nil)
	_ pipelineacts.MailLogs     = maillog.Logs{}
	_ pipelineacts.Launcher     = (*runs.Launcher)(nil)
	_ delivery.Launcher         = (*runs.Launcher)(nil)
	_ delivery.Opener           = (*credentials.Vault)(nil)
	_ automation.CodeRunner     = (*sandbox.Lazy)(nil)
	_ automation.ScheduleSync   = (*runs.Schedules)(nil)
	_ automation.Sealer         = (*credentials.Vault)(nil)
	_ runs.WorkflowStarter      = (*temporalx.Starter)(nil)
	_ resource.WorkflowStarter  = (*temporalx.Starter)(nil)
)

// pipelines holds what pipelines, triggers and functions run with.
type pipelines struct {
	sandbox   *sandbox.Lazy
	notifier  *notify.Router
	launcher  *runs.Launcher
	schedules *runs.Schedules
}

// wirePipelines builds the sandbox pool (started on first use), the
// notification senders and, with Temporal, the run launcher and the cron
// schedules.
func (a *App) wirePipelines() {
	cmd := a.Config.SandboxCommand
	if len(cmd) == 0 {
		exe, err := os.Executable()
		if err != nil {
			exe = os.Args[0]
		}
		cmd = []string{exe, "sandbox"}
	}
	a.pipes.sandbox = sandbox.NewLazy(sandbox.PoolOptions{
		Command: cmd, Env: a.Config.SandboxEnv, Size: a.Config.SandboxSize, QueueTimeout: a.Config.SandboxQueueTimeout,
	})
	a.pipes.notifier = notify.FromConfig(a.Config)
	if a.Temporal != nil {
		a.pipes.launcher = &runs.Launcher{Store: a.Store, Starter: a.starter(a.Config.TaskQueue)}
		a.pipes.schedules = &runs.Schedules{Client: a.Temporal, TaskQueue: a.Config.TaskQueue}
	}
}

// automationDeps are the automation module's dependencies; nil ones make
// the routes needing them answer 503.
func (a *App) automationDeps() automation.Deps {
	if a.Config == nil {
		return automation.Deps{} // the declarations only (Modules)
	}
	d := automation.Deps{Store: a.Store, GatewayURL: a.Config.GatewayURL, HookLimiter: a.hookLimiter(), CronMinInterval: a.Config.CronMinInterval}
	if a.pipes.sandbox != nil {
		d.Code = a.pipes.sandbox
	}
	if a.Vault != nil {
		d.Vault = a.Vault
	}
	if a.Outbound != nil {
		d.Outbound = a.Outbound
	}
	if a.API != nil {
		d.Records = a.Service.Records(DataModules...)
	}
	if a.pipes.launcher != nil { // a process with Temporal
		d.Launcher, d.Runs, d.Starter = a.pipes.launcher, a.Temporal, a.starter(a.Config.TaskQueue)
		d.Schedules = a.pipes.schedules
	}
	return d
}

func (a *App) hookLimiter() api.Limiter {
	return ratelimit.New(a.Store, a.Config.HookRateLimit, time.Minute)
}

// pipelineActivities are the worker's pipeline activities with the
// steps' dependencies.
func (a *App) pipelineActivities() *pipelineacts.Activities {
	acts := &pipelineacts.Activities{Store: a.Store, Log: a.Log, Outbound: a.Outbound,
		Sandbox: a.pipes.sandbox, Records: a.Service.Records(DataModules...), Notifier: a.pipes.notifier,
		MailLogs: maillog.Logs{Service: a.Service}}
	if a.pipes.launcher != nil { // a nil *runs.Launcher would be a non-nil Launcher
		acts.Launcher = a.pipes.launcher
	}
	if a.Vault != nil {
		acts.Secrets = a.Vault
	}
	if a.Audit != nil {
		acts.Audit = a.Audit
	}
	return acts
}

// deliveryActivities are the worker's activities of event dispatches and
// webhook deliveries.
func (a *App) deliveryActivities() *delivery.Activities {
	acts := &delivery.Activities{Store: a.Store, Log: a.Log, Outbound: a.Outbound, WebhookTimeout: a.Config.WebhookTimeout,
		Records: a.Service, MaxChain: a.Config.PipelineChainMax}
	if a.pipes.launcher != nil {
		acts.Launcher = a.pipes.launcher
	}
	if a.Vault != nil {
		acts.Vault = a.Vault
	}
	// Failed deliveries are retried by one workflow per webhook, and a
	// webhook that keeps failing is disabled (docs/webhooks.md).
	acts.Retriers = a.retrierStarter()
	acts.DisableAfterParked, acts.DisableAfter = a.Config.WebhookDisableAfterParked, a.Config.WebhookDisableAfter
	return acts
}

// Close stops what the App started (the sandbox children, the notifier's
// connections).
func (a *App) Close() error {
	if a.Notifier != nil {
		a.Notifier.Close()
	}
	if a.pipes.sandbox != nil {
		return a.pipes.sandbox.Close()
	}
	return nil
}
