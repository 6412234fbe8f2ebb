package obs

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the platform's Prometheus collectors, on their own registry so
// tests can create several servers in one process.
type Metrics struct {
	Registry       *prometheus.Registry
	Requests       *prometheus.CounterVec
	Latency        *prometheus.HistogramVec
	WorkflowStarts *prometheus.CounterVec
}

// NewMetrics registers the collectors.
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "platform_http_requests_total", Help: "HTTP requests by route template, method and status.",
		}, []string{"route", "method", "status"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "platform_http_request_duration_seconds", Help: "HTTP request latency by route template and status.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method", "status"}),
		WorkflowStarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "platform_workflow_starts_total", Help: "Temporal workflows started by the platform, by workflow type.",
		}, []string{"workflow"}),
	}
	r.MustRegister(m.Requests, m.Latency, m.WorkflowStarts,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
