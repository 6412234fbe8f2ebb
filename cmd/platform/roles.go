package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"platform/cmd/platform/app"
	"platform/kernel/obs"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/temporalx"
)

func itoa(n int) string { return strconv.Itoa(n) }

// role says which parts a process runs.
type role struct {
	name     string
	api      bool
	worker   bool
	embedded bool // may start embedded servers for unset addresses
}

func runDev(args []string) error {
	return runRole(role{name: "dev", api: true, worker: true, embedded: true}, args)
}
func runAPI(args []string) error    { return runRole(role{name: "api", api: true}, args) }
func runWorker(args []string) error { return runRole(role{name: "worker", worker: true}, args) }

func runRole(r role, args []string) error {
	cfg, err := settings.Load(r.name, args)
	if err != nil {
		return err
	}
	if !r.embedded {
		if err := requireExternal(cfg); err != nil {
			return err
		}
	}
	var lock *dataLock
	if r.embedded && usesDataDir(cfg) {
		if lock, err = lockDataDir(cfg.DataDir); err != nil { // before anything starts
			return err
		}
		defer lock.release()
	}
	if r.embedded {
		cfg.OutboundAllow = append(cfg.OutboundAllow, loopback...)
	}
	log := obs.NewLogger(os.Stderr, cfg.LogLevel).With("role", r.name)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	started := time.Now()
	var f, h *front
	if r.api {
		if f, err = listen(cfg, log); err != nil {
			return err
		}
		defer f.srv.Close()
	} else if cfg.HealthAddr != "" {
		if h, err = listenHealth(cfg, log); err != nil {
			return err
		}
		defer h.srv.Close()
	}
	err = run(ctx, r, cfg, fronts{f, h}, lock, log, started)
	if err != nil && ctx.Err() != nil {
		log.Info("stopped during start-up", "error", err.Error())
		return nil
	}
	return err
}

// run starts the embedded servers, connects (retrying what may be late or
// racing other replicas), wires the App and serves until SIGTERM.
func run(ctx context.Context, r role, cfg *settings.Config, f fronts, lock *dataLock, log *slog.Logger, started time.Time) error {
	var emb embeddedServers
	wantFerret := cfg.MongoURI == "" && cfg.EmbeddedStore == "ferretdb"
	if err := emb.start(cfg, log, wantFerret, cfg.TemporalAddress == ""); err != nil {
		return err
	}
	defer emb.stop()
	if err := lock.noteServers(&emb, cfg); err != nil {
		return err
	}
	retry := newRetrier(cfg, log, started)
	st, tc, err := connect(ctx, cfg, log, retry)
	if err != nil {
		return err
	}
	defer tc.Close()
	defer st.Close(context.Background())
	var adm *admin
	if cfg.UsesEmbeddedSQLite() {
		log.Info("embedded store ready", "kind", "sqlite", "file", cfg.SQLitePath())
		if adm, err = serveAdmin(ctx, cfg, st, log); err != nil {
			return err
		}
	}
	var a *app.App
	err = retry.do(ctx, "wire the app (indexes, keys, modules)", func(ctx context.Context) (err error) {
		a, err = app.New(ctx, cfg, st, tc, log)
		return err
	})
	if err != nil {
		return err
	}
	defer a.Close()
	if adm != nil {
		adm.app.Store(a)
	}
	if r.embedded {
		if err := retry.do(ctx, "seed", func(ctx context.Context) error { return seed(ctx, a) }); err != nil {
			return err
		}
	}
	return serve(ctx, r, a, f, retry, log, started)
}

func requireExternal(cfg *settings.Config) error {
	if cfg.MongoURI == "" {
		return &settings.InvalidError{Env: "MONGODB_URI", Flag: "mongodb-uri", Reason: "required for this role (platform dev runs the embedded defaults)"}
	}
	if cfg.TemporalAddress == "" {
		return &settings.InvalidError{Env: "TEMPORAL_ADDRESS", Flag: "temporal-address", Reason: "required for this role (platform dev runs the embedded defaults)"}
	}
	return nil
}

// connect opens the store and dials Temporal, each retried until reachable.
func connect(ctx context.Context, cfg *settings.Config, log *slog.Logger, retry *retrier) (st store.Store, tc client.Client, err error) {
	err = retry.do(ctx, "open the store", func(ctx context.Context) (err error) {
		st, err = openStore(ctx, cfg)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	err = retry.do(ctx, "connect to Temporal", func(ctx context.Context) (err error) {
		tc, err = temporalx.Dial(ctx, cfg.TemporalAddress, cfg.TemporalNamespace, log)
		return err
	})
	if err != nil {
		_ = st.Close(context.Background())
		return nil, nil, err
	}
	return st, tc, nil
}

// fronts are a process's listeners: the API's, or a worker's probes'.
type fronts struct{ api, health *front }

// serve switches the listener to the API and/or starts the worker, runs
// until SIGTERM, then lets in-flight requests finish and the worker drain.
func serve(ctx context.Context, r role, a *app.App, fs fronts, retry *retrier, log *slog.Logger, started time.Time) error {
	f := fs.api
	var errc chan error // nil without an API: never receives
	if f != nil {
		f.serve(a.API.Handler())
		errc = f.errc
	}
	if r.worker {
		w, err := startWorker(ctx, a, retry)
		if err != nil {
			return err
		}
		defer w.Stop() // drains: waits for running activities up to WorkerStopTimeout
		log.Info("worker polling", "taskQueues", app.TaskQueues(a.Config.TaskQueue))
		if fs.health != nil {
			hs := workerReady(fs.health, a, log)
			defer hs.Drain() // /readyz 503 while the worker drains
		}
	}
	log.Info("platform ready", "startupMs", time.Since(started).Milliseconds())
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	log.Info("shutting down", "drain", a.Config.DrainDelay.String(), "timeout", a.Config.ShutdownTimeout.String())
	if f != nil {
		a.API.Drain()
		time.Sleep(a.Config.DrainDelay)
		sctx, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
		defer cancel()
		if err := f.srv.Shutdown(sctx); err != nil {
			log.Warn("HTTP shutdown incomplete", "error", err)
		}
	}
	return nil
}

// startWorker starts the Temporal worker, a fresh one per attempt (a worker
// that failed to start is not started again).
func startWorker(ctx context.Context, a *app.App, retry *retrier) (w sdkworker.Worker, err error) {
	err = retry.do(ctx, "start the worker", func(ctx context.Context) error {
		if err := a.PutSchedules(ctx, a.Config.TaskQueue); err != nil {
			return err
		}
		w = a.Worker(a.Config.TaskQueue)
		return w.Start()
	})
	return w, err
}

func seed(ctx context.Context, a *app.App) error {
	res, err := a.Seed(ctx, a.Config.AdminPassword)
	if err != nil {
		return err
	}
	printSeed(a.Config, res)
	return nil
}

func printSeed(cfg *settings.Config, res *app.SeedResult) {
	out := os.Stdout
	fmt.Fprintf(out, "\nPlatform dev is starting on %s (gateway %s), Temporal UI %s\n", cfg.HTTPAddr, cfg.GatewayURL, orNone(cfg.TemporalUI()))
	fmt.Fprintf(out, "  customer:  %s (id %s)\n", res.Customer.Slug, res.Customer.ID)
	if res.AdminPassword != "" {
		fmt.Fprintf(out, "  admin:     %s, password %s  (shown once; set PLATFORM_ADMIN_PASSWORD to choose it)\n", res.Admin.Email, res.AdminPassword)
	} else {
		fmt.Fprintf(out, "  admin:     %s (password as set on first start)\n", res.Admin.Email)
	}
	if res.AppSecret != "" {
		fmt.Fprintf(out, "  app:       client_id %s, client_secret %s  (shown once)\n", res.App.ClientID, res.AppSecret)
	} else {
		fmt.Fprintf(out, "  app:       client_id %s\n", res.App.ClientID)
	}
	fmt.Fprintf(out, "Admin console: %s/ (workspace %s, sign in as the admin)\n", cfg.ConsoleURL(), res.Customer.Slug)
	fmt.Fprintf(out, "Sign in (apps send users here): %s/oauth/authorize (discovery: %s/.well-known/oauth-authorization-server)\n", cfg.LoginURL, cfg.AuthURL)
	fmt.Fprintf(out, "Get a token as the admin:\n  TOKEN=$(%s token --customer %s --user %s --scope 'crm.*')\n", os.Args[0], res.Customer.Slug, res.Admin.Email)
	fmt.Fprintf(out, "or as the app (client credentials):\n  curl -u '%s:<client_secret>' -d grant_type=client_credentials -d scope='crm.*' %s/oauth/token\n", res.App.ClientID, cfg.AuthURL)
	fmt.Fprintf(out, "then:\n  curl -H \"Authorization: Bearer $TOKEN\" %s/crm/consumers\n", cfg.GatewayURL)
	fmt.Fprintf(out, "Webhooks and pipeline http steps may call this machine's loopback addresses (127.0.0.1, ::1, localhost) in dev; "+
		"the api and worker roles refuse them unless PLATFORM_OUTBOUND_ALLOW names them.\n\n")
}

// loopback is what platform dev lets outbound calls reach besides
// PLATFORM_OUTBOUND_ALLOW: receivers a developer runs on the same machine.
// The api and worker roles keep refusing it.
var loopback = []string{"127.0.0.0/8", "::1/128"}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
