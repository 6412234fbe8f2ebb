package notifier

import (
	"strconv"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the hub's Prometheus collectors: connections and tails
// open, messages sent, and connections the server closed by close code
// (1013 counts the slow clients dropped).
type metrics struct {
	sent   prometheus.Counter
	closes *prometheus.CounterVec
}

func newMetrics(h *Hub, reg prometheus.Registerer) *metrics {
	m := &metrics{
		sent: prometheus.NewCounter(prometheus.CounterOpts{Name: "platform_notifier_messages_total",
			Help: "Messages the notifier sent to WebSocket clients."}),
		closes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "platform_notifier_closes_total",
			Help: "Notifier connections the server closed, by WebSocket close code (1013: too slow)."}, []string{"code"}),
	}
	if reg == nil {
		return m
	}
	reg.MustRegister(m.sent, m.closes,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "platform_notifier_connections", Help: "Open notifier connections."},
			func() float64 { return float64(h.Stats().Connections) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "platform_notifier_tails", Help: "Customers whose events this process tails."},
			func() float64 { return float64(h.Stats().Tails) }))
	return m
}

func (m *metrics) closed(code websocket.StatusCode) {
	m.closes.WithLabelValues(strconv.Itoa(int(code))).Inc()
}
