package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	aads "platform/activities/ads"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/ads"
	"platform/modules/ads/adsapi"
	"platform/modules/ads/adsync"
	"platform/workflows/contract"
)

// adsTimeout bounds one call to the ad platform.
const adsTimeout = 30 * time.Second

// adsMaxWait is the longest Retry-After a call waits out itself.
const adsMaxWait = 5 * time.Second

// wireAds builds the ads service, with the platform's client when one is
// configured (through the outbound guard).
func (a *App) wireAds() error {
	s := a.Config.Ads
	a.ads = &adsync.Service{Records: a.Service, Vault: a.Vault, RedirectURL: s.RedirectURL, StateTTL: s.StateTTL,
		MetricDays: s.MetricDays, RevisitDays: s.RevisitDays}
	if a.ads.RedirectURL == "" {
		a.ads.RedirectURL = a.Config.GatewayURL + "/ads" + ads.CallbackPath
	}
	if a.Temporal != nil {
		a.ads.Schedules = &adsSchedules{client: a.Temporal, taskQueue: a.Config.TaskQueue, every: s.SyncInterval}
	}
	if s.APIURL == "" {
		return nil
	}
	c, err := adsapi.NewClient(adsapi.Config{APIURL: s.APIURL, AuthURL: s.AuthURL, TokenURL: s.TokenURL, ClientID: s.ClientID,
		ClientSecret: s.ClientSecret, DeveloperToken: s.DeveloperToken, Timeout: adsTimeout, MaxWait: adsMaxWait}, a.Outbound.Client(adsTimeout))
	if err != nil {
		return fmt.Errorf("PLATFORM_ADS_*: %w", err)
	}
	a.ads.Provider = c
	return nil
}

// adsDeps are the ads module's; none for the declarations alone.
func (a *App) adsDeps() ads.Deps { return ads.Deps{Ads: a.ads} }

func (a *App) adsActivities() *aads.Activities {
	if a.ads == nil {
		return nil
	}
	return &aads.Activities{Ads: a.ads}
}

// adsSchedules keep one Temporal schedule per connected account; a tick
// while the account's last sync still runs is skipped.
type adsSchedules struct {
	client    client.Client
	taskQueue string
	every     time.Duration
}

func scheduleID(cust, conn string) string { return "ads-sync-schedule-" + cust + "-" + conn }

// Put implements adsync.Schedules.
func (s *adsSchedules) Put(ctx context.Context, conn string) error {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	return temporalx.PutSchedule(ctx, s.client, client.ScheduleOptions{
		ID:   scheduleID(cust, conn),
		Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: s.every}}},
		Action: &client.ScheduleWorkflowAction{ID: contract.AdsSyncWorkflowID(cust, conn), Workflow: contract.WorkflowAdsSync,
			TaskQueue: contract.QueueOf(s.taskQueue, contract.WorkflowAdsSync), Args: []any{contract.AdsSyncInput{ConnectionID: conn}},
			TypedSearchAttributes: temporal.NewSearchAttributes(temporal.NewSearchAttributeKeyKeyword(contract.AttrCustomer).ValueSet(cust)),
			Priority:              temporalx.Fairness(ctx)},
		Overlap:       enums.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow: time.Minute,
	})
}

// Remove implements adsync.Schedules; a missing schedule is fine.
func (s *adsSchedules) Remove(ctx context.Context, conn string) error {
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return err
	}
	err = s.client.ScheduleClient().GetHandle(ctx, scheduleID(cust, conn)).Delete(ctx)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil
	}
	return err
}
