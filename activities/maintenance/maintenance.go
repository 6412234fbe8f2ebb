// Package maintenance holds the activities of the platform's housekeeping
// workflows: removing what expired. Each works through an interface it
// declares, satisfied by the module that owns the data (the composition
// root wires them), so the worker's activities never import a module's
// HTTP side.
package maintenance

import (
	"context"
	"fmt"
	"time"

	"platform/workflows/contract"
)

// OAuthSweeper removes what expired from the OAuth service's collections
// (oauth.Sweeper): documents removed per collection, and whether expired
// ones are left for another call.
type OAuthSweeper interface {
	Sweep(ctx context.Context, now time.Time) (removed map[string]int64, more bool, err error)
}

// Activities are the housekeeping activities (worker.Register gives them
// their contract names).
type Activities struct {
	OAuth OAuthSweeper
}

// SweepOAuth runs one bounded round of the OAuth sweep.
func (a *Activities) SweepOAuth(ctx context.Context) (contract.OAuthSweepRound, error) {
	removed, more, err := a.OAuth.Sweep(ctx, time.Now())
	if err != nil {
		return contract.OAuthSweepRound{}, fmt.Errorf("oauth sweep: %w", err)
	}
	return contract.OAuthSweepRound{Removed: removed, More: more}, nil
}
