package app

import (
	"context"
	"fmt"

	"platform/modules/marketing"
	"platform/modules/marketing/tracking"
)

// startTracking serves {tracking_url} on the gateway, signing and checking
// links with the installation's key (shared by every replica).
func (a *App) startTracking(ctx context.Context) error {
	key, err := tracking.LoadKey(ctx, a.Store)
	if err != nil {
		return fmt.Errorf("tracking: %w", err)
	}
	a.Tracking = tracking.Signer{Base: a.Config.TrackingURL, Key: key}
	(&marketing.Tracker{Signer: a.Tracking, Service: a.Service, Log: a.Log}).Mount(a.API)
	return nil
}

// marketingDeps are the marketing module's; zero for the declarations
// alone (Modules).
func (a *App) marketingDeps() marketing.Deps {
	if a.Service == nil {
		return marketing.Deps{}
	}
	return marketing.Deps{Intake: &marketing.Intake{Token: a.Config.MailInboundToken, Service: a.Service}, Expiry: a.couponExpiry()}
}
