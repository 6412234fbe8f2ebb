package app

import (
	"fmt"
	"time"

	acomputing "platform/activities/computing"
	"platform/modules/config"
	"platform/modules/config/computing"
)

// computeTimeout bounds one call to the compute provider.
const computeTimeout = 20 * time.Second

// wireComputing opens the compute provider when configured (through the
// outbound guard).
func (a *App) wireComputing() error {
	s := a.Config.Computing
	if s.ProviderURL == "" {
		return nil
	}
	c, err := computing.NewClient(s.ProviderURL, s.ProviderToken, computeTimeout, a.Outbound.Client(computeTimeout))
	if err != nil {
		return fmt.Errorf("PLATFORM_COMPUTE_URL: %w", err)
	}
	a.computeProvider = c
	return nil
}

// computingDeps configure the computing actions; none for the
// declarations alone (Modules).
func (a *App) computingDeps() config.ComputingDeps {
	if a.Config == nil {
		return config.ComputingDeps{}
	}
	s := a.Config.Computing
	return config.ComputingDeps{Available: a.computeProvider != nil, Poll: s.Poll, Deadline: s.Deadline}
}

// computingActivities serve the computing action workflow; without a
// provider they fail its moves, which the entity then records.
func (a *App) computingActivities() *acomputing.Activities {
	return &acomputing.Activities{Entities: &computing.Entities{Records: a.Service, Provider: a.computeProvider}}
}
