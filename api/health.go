package api

import (
	"log/slog"
	"net/http"

	"platform/kernel/obs"
	"platform/kernel/resource"
	"platform/kernel/settings"
)

// Health is the probe server of a process that serves no API (a worker
// with PLATFORM_HEALTH_ADDR): /healthz, /readyz over the checks, /metrics,
// and 404 for every other path.
func Health(cfg *settings.Config, log *slog.Logger, ready []ReadyCheck) *Server {
	s := newServer(cfg, log, obs.NewMetrics(), ready)
	notFound := s.adapt(func(*Request) (*Response, error) {
		return nil, NewError(http.StatusNotFound, resource.CodeNotFound, "", "this address answers health probes only")
	})
	s.engine.NoRoute(notFound)
	s.engine.NoMethod(notFound)
	return s
}
