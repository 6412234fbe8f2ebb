package newsletter

import (
	"context"
	"sync"
)

// ledgerIndexes ensures the ledger's unique index once per process, before
// the first claim: without it two attempts could both claim a recipient.
type ledgerIndexes struct {
	mu   sync.Mutex
	done bool
}

func (s *Sender) ensureLedger(ctx context.Context) error {
	s.ledger.mu.Lock()
	defer s.ledger.mu.Unlock()
	if s.ledger.done {
		return nil
	}
	if err := s.Service.Store.EnsureIndexes(ctx, Ledger, true, LedgerIndexes); err != nil {
		return err
	}
	s.ledger.done = true
	return nil
}
