package delivery

import (
	"context"
	"sync"
	"time"

	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// Retriers is the RetrierStarter of a process with Temporal: it signals a
// webhook's retrier, starting it when none runs (workflow id
// contract.RetrierWorkflowID, search attributes PlatformCustomer and
// PlatformWebhook), in one call that never starts a second one.
//
// Calls for a webhook signalled less than contract.RetrierSignalFresh ago
// are answered from memory, without the server. That strands nothing: a
// retrier looks for queued deliveries contract.RetrierCheckAfter after
// each signal before it may end, which is after everything queued while
// this memory trusted it (see WebhookRetrier).
type Retriers struct {
	Starter *temporalx.Starter

	mu       sync.Mutex
	signaled map[string]time.Time // webhook id -> when it was last signalled
}

// NewRetriers returns the retrier starter on st's task queue.
func NewRetriers(st *temporalx.Starter) *Retriers {
	return &Retriers{Starter: st, signaled: map[string]time.Time{}}
}

// EnsureRetrier implements RetrierStarter.
func (r *Retriers) EnsureRetrier(ctx context.Context, customer, webhookID string) error {
	now := time.Now() // before the call: the window the retrier's check covers starts no later
	if r.fresh(webhookID, now) {
		return nil
	}
	err := r.Starter.SignalOrStart(tenant.WithCustomer(ctx, customer), temporalx.Start{
		ID: contract.RetrierWorkflowID(webhookID), Workflow: contract.WorkflowWebhookRetrier,
		Input: contract.RetrierInput{WebhookID: webhookID}, Attrs: contract.RetrierAttributes(customer, webhookID),
	}, contract.SignalRetrierQueued)
	if err == nil {
		r.remember(webhookID, now)
	}
	return err
}

// fresh reports whether the webhook's retrier was signalled recently enough.
func (r *Retriers) fresh(webhookID string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.signaled[webhookID]
	return ok && now.Sub(at) < contract.RetrierSignalFresh
}

// maxRemembered bounds the memory; past it, stale entries are dropped.
const maxRemembered = 10_000

func (r *Retriers) remember(webhookID string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.signaled == nil {
		r.signaled = map[string]time.Time{}
	}
	if len(r.signaled) >= maxRemembered {
		for id, t := range r.signaled {
			if at.Sub(t) >= contract.RetrierSignalFresh {
				delete(r.signaled, id)
			}
		}
	}
	r.signaled[webhookID] = at
}
