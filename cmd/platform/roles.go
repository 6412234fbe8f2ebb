package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"platform/api"
	"platform/app"
	"platform/config"
	"platform/obs"
	"platform/store"
	"platform/temporalx"
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
	cfg, err := config.Load(r.name, args)
	if err != nil {
		return err
	}
	if !r.embedded {
		if err := requireExternal(cfg); err != nil {
			return err
		}
	}
	log := obs.NewLogger(os.Stderr, cfg.LogLevel).With("role", r.name)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	started := time.Now()

	var emb embeddedServers
	wantFerret := cfg.MongoURI == "" && cfg.EmbeddedStore == "ferretdb"
	if err := emb.start(cfg, log, wantFerret, cfg.TemporalAddress == ""); err != nil {
		return err
	}
	defer emb.stop()
	st, tc, err := connect(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer tc.Close()
	defer st.Close(context.Background())
	if cfg.UsesEmbeddedSQLite() {
		log.Info("embedded store ready", "kind", "sqlite", "file", cfg.SQLitePath())
		if err := serveAdmin(ctx, cfg, st, log); err != nil {
			return err
		}
	}

	a, err := app.New(ctx, cfg, st, tc, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if r.embedded {
		if err := seed(ctx, a); err != nil {
			return err
		}
	}
	return serve(ctx, r, a, log, started)
}

func requireExternal(cfg *config.Config) error {
	if cfg.MongoURI == "" {
		return &config.InvalidError{Env: "MONGODB_URI", Flag: "mongodb-uri", Reason: "required for this role (platform dev runs the embedded defaults)"}
	}
	if cfg.TemporalAddress == "" {
		return &config.InvalidError{Env: "TEMPORAL_ADDRESS", Flag: "temporal-address", Reason: "required for this role (platform dev runs the embedded defaults)"}
	}
	return nil
}

// connect opens the store and dials Temporal.
func connect(ctx context.Context, cfg *config.Config, log *slog.Logger) (store.Store, client.Client, error) {
	st, err := openStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	tc, err := temporalx.Dial(ctx, cfg.TemporalAddress, cfg.TemporalNamespace, log)
	if err != nil {
		_ = st.Close(context.Background())
		return nil, nil, err
	}
	return st, tc, nil
}

// serve runs the API and/or worker until SIGTERM, then lets in-flight
// requests finish and the worker drain.
func serve(ctx context.Context, r role, a *app.App, log *slog.Logger, started time.Time) error {
	errc := make(chan error, 2)
	var srv *http.Server
	if r.api {
		ln, err := net.Listen("tcp", a.Config.HTTPAddr)
		if err != nil {
			return fmt.Errorf("listen on %s (PLATFORM_HTTP_ADDR): %w", a.Config.HTTPAddr, err)
		}
		srv = api.NewHTTPServer(a.Config, a.API.Handler())
		go func() { errc <- srv.Serve(ln) }()
		log.Info("API listening", "address", ln.Addr().String(), "gateway", a.Config.GatewayURL)
	}
	if r.worker {
		w := a.Worker(a.Config.TaskQueue)
		if err := w.Start(); err != nil {
			return fmt.Errorf("start worker: %w", err)
		}
		defer w.Stop() // drains: waits for running activities up to WorkerStopTimeout
		log.Info("worker polling", "taskQueue", a.Config.TaskQueue)
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
	if srv != nil {
		a.API.Drain()
		time.Sleep(a.Config.DrainDelay)
		sctx, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			log.Warn("HTTP shutdown incomplete", "error", err)
		}
	}
	return nil
}

func seed(ctx context.Context, a *app.App) error {
	res, err := a.Seed(ctx, a.Config.AdminPassword)
	if err != nil {
		return err
	}
	printSeed(a.Config, res)
	return nil
}

func printSeed(cfg *config.Config, res *app.SeedResult) {
	out := os.Stdout
	fmt.Fprintf(out, "\nPlatform dev is starting on %s (gateway %s), Temporal UI %s\n", cfg.HTTPAddr, cfg.GatewayURL, uiURL(cfg.TemporalUIPort))
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
	fmt.Fprintf(out, "Sign in (apps send users here): %s/oauth/authorize (discovery: %s/.well-known/oauth-authorization-server)\n", cfg.LoginURL, cfg.AuthURL)
	fmt.Fprintf(out, "Get a token as the admin:\n  TOKEN=$(%s token --customer %s --user %s --scope 'crm.*')\n", os.Args[0], res.Customer.Slug, res.Admin.Email)
	fmt.Fprintf(out, "or as the app (client credentials):\n  curl -u '%s:<client_secret>' -d grant_type=client_credentials -d scope='crm.*' %s/oauth/token\n", res.App.ClientID, cfg.AuthURL)
	fmt.Fprintf(out, "then:\n  curl -H \"Authorization: Bearer $TOKEN\" %s/crm/consumers\n\n", cfg.GatewayURL)
}
