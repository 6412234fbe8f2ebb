package dispatch

import "time"

// Limits bound what one dispatcher holds and sends at once; zero fields
// take the defaults below (docs/webhooks.md explains each).
type Limits struct {
	PerWebhook  int           // first attempts in flight per webhook
	PerCustomer int           // first attempts in flight per customer, over all its webhooks
	Total       int           // first attempts in flight in the process
	LaneQueue   int           // deliveries waiting in one webhook's lane; more go to its retrier
	Backlog     int           // events claimed and not finished, past which claiming pauses
	Batch       int           // events claimed per customer at once
	HotBuffer   int           // events of one customer waiting for the fast path
	Lease       time.Duration // how long a claim holds without renewal
	PollEvery   time.Duration // how often hints of other processes' events are read
	SweepEvery  time.Duration // how often every customer is swept
	Grace       time.Duration // a sweep leaves younger events to the fast path
	// FailStreak failed first attempts in a row open a webhook's circuit
	// for Cooldown: its deliveries go straight to its retrier.
	FailStreak int
	Cooldown   time.Duration
}

// Defaults of Limits.
const (
	DefaultPerWebhook  = 16
	DefaultPerCustomer = 128
	DefaultTotal       = 256
	DefaultLaneQueue   = 1000
	DefaultBacklog     = 20000
	DefaultBatch       = 100
	DefaultHotBuffer   = 5000
	DefaultLease       = 30 * time.Second
	DefaultPollEvery   = 100 * time.Millisecond
	DefaultSweepEvery  = 5 * time.Second
	DefaultGrace       = 2 * time.Second
	DefaultFailStreak  = 5
	DefaultCooldown    = 30 * time.Second
)

func (l Limits) withDefaults() Limits {
	orN(&l.PerWebhook, DefaultPerWebhook)
	orN(&l.PerCustomer, DefaultPerCustomer)
	orN(&l.Total, DefaultTotal)
	orN(&l.LaneQueue, DefaultLaneQueue)
	orN(&l.Backlog, DefaultBacklog)
	orN(&l.Batch, DefaultBatch)
	orN(&l.HotBuffer, DefaultHotBuffer)
	orN(&l.FailStreak, DefaultFailStreak)
	orD(&l.Lease, DefaultLease)
	orD(&l.PollEvery, DefaultPollEvery)
	orD(&l.SweepEvery, DefaultSweepEvery)
	orD(&l.Grace, DefaultGrace)
	orD(&l.Cooldown, DefaultCooldown)
	return l
}

func orN(n *int, def int) {
	if *n <= 0 {
		*n = def
	}
}

func orD(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}
