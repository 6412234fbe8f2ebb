package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"platform/api"
	"platform/cmd/platform/app"
	"platform/kernel/settings"
	"platform/kernel/temporalx"
)

// listenHealth opens a worker's probe listener (PLATFORM_HEALTH_ADDR)
// before it connects to anything, as an API process listens: /healthz 200
// while the process runs, /readyz 503 "starting" until the worker polls.
func listenHealth(cfg *settings.Config, log *slog.Logger) (*front, error) {
	ln, err := net.Listen("tcp", cfg.HealthAddr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (PLATFORM_HEALTH_ADDR): %w", cfg.HealthAddr, err)
	}
	f := &front{errc: make(chan error, 1)}
	f.serve(api.Starting(cfg, log).Handler())
	f.srv = api.NewHTTPServer(cfg, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*f.handler.Load()).ServeHTTP(w, r)
	}))
	go func() { f.errc <- f.srv.Serve(ln) }()
	log.Info("health probes listening", "address", ln.Addr().String())
	return f, nil
}

// workerReady switches the probe listener to the worker's state: ready
// while the store and Temporal answer. The returned server drains on
// shutdown (/readyz 503 "shutting down").
func workerReady(h *front, a *app.App, log *slog.Logger) *api.Server {
	s := api.Health(a.Config, log, []api.ReadyCheck{
		{Name: "store", Check: a.Store.Ping},
		{Name: "temporal", Check: temporalx.Ready(a.Temporal)},
	})
	h.serve(s.Handler())
	return s
}
