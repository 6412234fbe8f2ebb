// Package app is the composition root shared by every role: it wires the
// store, Temporal, the API with its modules and the worker's activities.
// cmd/platform adds only the embedded servers and process handling, and
// tests build the same App against the test environment.
package app

import (
	"context"
	"fmt"
	"log/slog"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"platform/activities"
	"platform/api"
	"platform/auth"
	"platform/config"
	"platform/events"
	"platform/identity"
	"platform/modules/crm"
	"platform/modules/marketing"
	"platform/obs"
	"platform/ratelimit"
	"platform/store"
	"platform/temporalx"
	"platform/worker"
)

// App is one wired platform.
type App struct {
	Config   *config.Config
	Store    store.Store
	Temporal client.Client
	Log      *slog.Logger
	Metrics  *obs.Metrics
	Keys     *auth.KeyRing
	Minter   *auth.Minter
	Verifier *auth.Verifier
	Identity *identity.Service
	Events   *events.Recorder
	Registry *api.Registry
	API      *api.Server
}

// Modules lists the mounted modules.
func Modules() []*api.Module {
	return []*api.Module{crm.Module(), marketing.Module()}
}

// New wires everything and ensures the indexes of every collection.
func New(ctx context.Context, cfg *config.Config, st store.Store, tc client.Client, log *slog.Logger) (*App, error) {
	a := &App{Config: cfg, Store: st, Temporal: tc, Log: log, Metrics: obs.NewMetrics(), Registry: api.NewRegistry()}
	a.Keys = auth.NewKeyRing(st)
	a.Minter = &auth.Minter{Keys: a.Keys, Issuer: cfg.AuthURL, Audience: cfg.GatewayURL}
	a.Verifier = &auth.Verifier{Keys: a.Keys, Issuer: cfg.AuthURL, Audience: cfg.GatewayURL}
	a.Identity = &identity.Service{Store: st}
	a.Events = &events.Recorder{Store: st}
	if err := a.ensureIndexes(ctx); err != nil {
		return nil, err
	}
	svc := &api.Services{Store: st, Events: a.Events, Registry: a.Registry, Log: log}
	ready := []api.ReadyCheck{{Name: "store", Check: st.Ping}}
	if tc != nil {
		ready = append(ready, api.ReadyCheck{Name: "temporal", Check: temporalx.Ready(tc)})
	}
	a.API = api.New(api.Deps{
		Config: cfg, Services: svc, Verifier: a.Verifier,
		Limiter: ratelimit.New(st, cfg.RateLimit, cfg.RateWindow),
		Bugs:    &crm.BugRecorder{Store: st, Log: log}, Metrics: a.Metrics, Ready: ready,
	})
	for _, m := range Modules() {
		if err := a.API.Mount(ctx, m); err != nil {
			return nil, fmt.Errorf("mount %s: %w", m.Name, err)
		}
	}
	return a, nil
}

func (a *App) ensureIndexes(ctx context.Context) error {
	if err := a.Identity.EnsureIndexes(ctx); err != nil {
		return err
	}
	return a.Store.EnsureIndexes(ctx, events.Collection, true, events.Indexes)
}

// Worker returns the Temporal worker with every workflow and activity.
func (a *App) Worker(taskQueue string) sdkworker.Worker {
	return worker.New(a.Temporal, taskQueue, &activities.Activities{Store: a.Store, Log: a.Log})
}
