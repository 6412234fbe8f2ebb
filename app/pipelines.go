package app

import (
	"os"
	"time"

	"platform/activities"
	"platform/api"
	"platform/kernel/notify"
	"platform/kernel/ratelimit"
	"platform/kernel/resource"
	"platform/modules/automation"
	"platform/modules/automation/runs"
	"platform/sandbox"
)

// DataModules are the modules whose collections pipeline db steps may use.
var DataModules = []string{"crm", "marketing"}

var (
	_ api.Limiter             = (*ratelimit.Limiter)(nil)
	_ activities.Records      = (*resource.Records)(nil)
	_ activities.Sandbox      = (*sandbox.Lazy)(nil)
	_ automation.CodeRunner   = (*sandbox.Lazy)(nil)
	_ automation.ScheduleSync = (*runs.Schedules)(nil)
	_ activities.Notifier     = (*notify.Router)(nil)
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
	d := automation.Deps{Store: a.Store, GatewayURL: a.Config.GatewayURL, HookLimiter: a.hookLimiter()}
	if a.pipes.sandbox != nil {
		d.Code = a.pipes.sandbox
	}
	if a.Vault != nil {
		d.Vault = a.Vault
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

// pipelineActivities adds the pipeline steps' dependencies to the worker's
// activities.
func (a *App) pipelineActivities(acts *activities.Activities) {
	acts.Sandbox = a.pipes.sandbox
	acts.Records = a.Service.Records(DataModules...)
	acts.Notifier = a.pipes.notifier
	acts.Launcher = a.pipes.launcher
	if a.Vault != nil {
		acts.Secrets, acts.Vault = a.Vault, a.Vault
	}
}

// Close stops what the App started (the sandbox children).
func (a *App) Close() error {
	if a.pipes.sandbox != nil {
		return a.pipes.sandbox.Close()
	}
	return nil
}
