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
)

// OAuthSweeper removes what expired from the OAuth service's collections
// (oauth.Sweeper): documents removed per collection, and whether expired
// ones are left for another call.
type OAuthSweeper interface {
	Sweep(ctx context.Context, now time.Time) (removed map[string]int64, more bool, err error)
}

// Activities are the housekeeping activities; register the struct, so its
// methods are the activities' names (workflows.SweepOAuthActivity).
type Activities struct {
	OAuth OAuthSweeper
}

// SweepRound is one call's answer (workflows.OAuthSweepRound).
type SweepRound struct {
	Removed map[string]int64
	More    bool
}

// SweepOAuth runs one bounded round of the OAuth sweep.
func (a *Activities) SweepOAuth(ctx context.Context) (SweepRound, error) {
	removed, more, err := a.OAuth.Sweep(ctx, time.Now())
	if err != nil {
		return SweepRound{}, fmt.Errorf("oauth sweep: %w", err)
	}
	return SweepRound{Removed: removed, More: more}, nil
}
