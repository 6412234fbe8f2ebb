package dispatch

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the dispatcher's figures on /metrics (docs/webhooks.md):
// how far dispatch lags behind the writes, and what it holds.
type metrics struct {
	lag       prometheus.Histogram
	attempts  *prometheus.HistogramVec
	spilled   prometheus.Counter
	sweptFull prometheus.Counter
}

func newMetrics(d *Dispatcher) *metrics {
	m := &metrics{
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "platform_dispatch_lag_seconds",
			Help:    "From an event's write to its dispatched mark (every webhook's first attempt made or handed to its retrier, every run started).",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}),
		attempts: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "platform_webhook_first_attempt_seconds",
			Help:    "First delivery attempts made by the dispatcher, by outcome.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"outcome"}),
		spilled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "platform_webhook_deliveries_spilled_total",
			Help: "Deliveries handed to their webhook's retrier without a first attempt (its circuit was open or its lane full).",
		}),
		sweptFull: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "platform_dispatch_sweeps_behind_total",
			Help: "Sweeps that found a full batch of unclaimed events for some customer: dispatch is behind the writes.",
		}),
	}
	backlog := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "platform_dispatch_backlog_events",
		Help: "Events this process has claimed and not finished dispatching.",
	}, func() float64 { return float64(d.inflight.total()) })
	if d.Metrics != nil {
		d.Metrics.MustRegister(m.lag, m.attempts, m.spilled, m.sweptFull, backlog)
	}
	return m
}

func (m *metrics) attempt(outcome string, took time.Duration) {
	if outcome == "" {
		outcome = "error"
	}
	m.attempts.WithLabelValues(outcome).Observe(took.Seconds())
}

func (m *metrics) dispatched(at time.Time) {
	if !at.IsZero() {
		m.lag.Observe(time.Since(at).Seconds())
	}
}
