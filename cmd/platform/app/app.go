// Package app is the composition root shared by every role: it wires the
// store, Temporal, the API with its modules and the worker's activities.
// cmd/platform adds only the embedded servers and process handling, and
// tests build the same App against the test environment.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"platform/kernel/resource"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"platform/activities/delivery"
	"platform/activities/system"
	"platform/api"
	"platform/api/notifier"
	"platform/kernel/auth"
	"platform/kernel/events"
	"platform/kernel/llm"
	"platform/kernel/obs"
	"platform/kernel/outbound"
	"platform/kernel/ratelimit"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/translate"
	"platform/modules/ads"
	"platform/modules/ads/adsync"
	"platform/modules/aggregation"
	"platform/modules/audit"
	"platform/modules/audit/trail"
	"platform/modules/automation"
	"platform/modules/cms"
	"platform/modules/config"
	"platform/modules/config/apikeys"
	"platform/modules/config/computing"
	"platform/modules/config/credentials"
	"platform/modules/config/states"
	"platform/modules/crm"
	"platform/modules/crm/bugs"
	"platform/modules/developer"
	"platform/modules/hub"
	"platform/modules/hub/search"
	"platform/modules/identity"
	"platform/modules/marketing"
	"platform/modules/marketing/newsletter"
	"platform/modules/marketing/tracking"
	"platform/modules/oauth"
	"platform/worker"
	"platform/worker/dispatch"
)

var (
	_ api.BugReporter = (*bugs.Recorder)(nil)
	_ system.Bugs     = (*bugs.Recorder)(nil)
)

// App is one wired platform.
type App struct {
	Config   *settings.Config
	Store    store.Store
	Temporal client.Client
	Log      *slog.Logger
	Metrics  *obs.Metrics
	dispatch *dispatch.Dispatcher // set once the process runs a worker
	hinter   *dispatch.Hinter
	Keys     *auth.KeyRing
	Minter   *auth.Minter
	Verifier *auth.Verifier
	Identity *identity.Service
	Events   *events.Recorder
	Registry *resource.Registry
	// Service is the record service every write of a record goes through.
	Service *resource.Service
	// Bugs files runtime errors as Bug tasks (HTTP, workflows, activities).
	Bugs  *bugs.Recorder
	API   *api.Server
	Audit trail.Writer
	OAuth *oauth.Service
	// Revocations is the Verifier's revocation list (OAuth access tokens).
	Revocations *oauth.RevocationList
	// Outbound guards calls to tenant URLs (PLATFORM_OUTBOUND_ALLOW).
	Outbound *outbound.Guard
	// Tracking signs the links of mail ({tracking_url}: pixel, clicks,
	// unsubscribe) and the tracker checks them.
	Tracking tracking.Signer
	// Search is the hub's search index, shared by the API and the render
	// workflow's activities.
	Search *search.Index
	// Vault seals the customers' credentials; nil without a master key
	// (the credential routes then answer 503 naming PLATFORM_MASTER_KEY).
	Vault *credentials.Vault
	// APIKeys checks API keys for the Verifier (module config keeps them).
	APIKeys *apikeys.Keys
	// Notifier pushes events to WebSocket clients at /notifier.
	Notifier *notifier.Hub

	pipes pipelines
	news  *newsletter.Sender
	// translator is the machine-translation provider; nil when none is set.
	translator translate.Provider
	// llm is the language model of generate-blocks; nil when none is set.
	llm llm.Provider
	// computeProvider moves computing entities; nil when none is set.
	computeProvider computing.Provider
	// ads is the ads module's service (app/ads.go).
	ads *adsync.Service
	// States is what this process's registration of the platform states
	// changed.
	States states.Result
}

// Modules lists the mounted modules (their declarations: New mounts them
// with the App's vault and audit trail).
func Modules() []*api.Module { return (&App{}).modules() }

func (a *App) modules() []*api.Module {
	return []*api.Module{crm.Module(crm.Deps{Users: a.Identity, Mail: a.mailHistory()}), marketing.Module(a.marketingDeps()), developer.Module(developer.Deps{Tokens: a.appTokens()}), audit.Module(), automation.Module(a.automationDeps()),
		config.Module(a.configDeps()), hub.Module(a.hubDeps()), cms.Module(a.cmsDeps()), ads.Module(a.adsDeps()),
		aggregation.Module(a.aggregationDeps())}
}

// configDeps are the config module's dependencies; the zero values (and
// no OAuth service) for the declarations alone (Modules).
func (a *App) configDeps() config.Deps {
	d := config.Deps{Vault: a.Vault, Audit: a.Audit, Service: a.Service, Outbound: a.Outbound, MaxAssetBytes: a.maxAssetBytes(),
		Commands: a.credentialCommands(), Computing: a.computingDeps(), APIKeys: a.APIKeys}
	if a.OAuth != nil {
		d.OAuthTokens = a.OAuth
	}
	return d
}

// appTokens ends a deleted app's tokens; nil for the declarations alone
// (Modules).
func (a *App) appTokens() developer.Tokens {
	if a.OAuth == nil {
		return nil
	}
	return a.OAuth
}

// mailHistory is marketing's mail history for the CRM; nil for the
// declarations alone (Modules).
func (a *App) mailHistory() crm.MailHistory {
	if a.Service == nil {
		return nil
	}
	return marketing.History{Service: a.Service}
}

// New wires everything and ensures the indexes of every collection.
func New(ctx context.Context, cfg *settings.Config, st store.Store, tc client.Client, log *slog.Logger) (*App, error) {
	a := &App{Config: cfg, Store: st, Temporal: tc, Log: log, Metrics: obs.NewMetrics(), Registry: resource.NewRegistry()}
	a.Keys = auth.NewKeyRing(st)
	a.Minter = &auth.Minter{Keys: a.Keys, Issuer: cfg.AuthURL, Audience: cfg.GatewayURL}
	a.Revocations = oauth.NewRevocationList(st)
	a.APIKeys = &apikeys.Keys{Store: st, Log: log}
	a.Verifier = &auth.Verifier{Keys: a.Keys, Issuer: cfg.AuthURL, Audience: cfg.GatewayURL, Revoked: a.Revocations, APIKeys: a.APIKeys}
	a.Identity = &identity.Service{Store: st}
	a.Events = &events.Recorder{Store: st}
	a.Audit = &trail.StoreWriter{Store: st, Log: log}
	if err := a.ensureIndexes(ctx); err != nil {
		return nil, err
	}
	if err := a.openVault(ctx); err != nil {
		return nil, err
	}
	a.Service = &resource.Service{Store: st, Events: a.Events, Registry: a.Registry, Log: log, CountCap: cfg.CountCap}
	a.Bugs = &bugs.Recorder{Service: a.Service, Log: log}
	if err := a.wireEvents(a.Service); err != nil {
		return nil, err
	}
	a.wirePipelines()
	if err := a.wireMarketing(ctx); err != nil {
		return nil, err
	}
	if err := a.wireHub(ctx); err != nil {
		return nil, err
	}
	if err := a.wireCMS(); err != nil {
		return nil, err
	}
	if err := a.wireComputing(); err != nil {
		return nil, err
	}
	if err := a.wireAds(); err != nil {
		return nil, err
	}
	ready := []api.ReadyCheck{{Name: "store", Check: st.Ping}}
	if tc != nil {
		ready = append(ready, api.ReadyCheck{Name: "temporal", Check: temporalx.Ready(tc)})
	}
	a.API = api.New(api.Deps{
		Config: cfg, Service: a.Service, Verifier: a.Verifier,
		Limiter:      ratelimit.New(st, cfg.RateLimit, cfg.RateWindow),
		TokenLimiter: ratelimit.New(st, cfg.TokenRateLimit(), cfg.RateWindow),
		AnonLimiter:  ratelimit.New(st, cfg.RateLimitAnonymous, cfg.RateWindow),
		Bugs:         a.Bugs, Metrics: a.Metrics, Ready: ready,
	})
	// Before the modules: developer ends a deleted app's tokens through it.
	if err := a.startOAuth(ctx); err != nil {
		return nil, err
	}
	for _, m := range a.modules() {
		if err := a.API.Mount(ctx, m); err != nil {
			return nil, fmt.Errorf("mount %s: %w", m.Name, err)
		}
	}
	if err := a.registerStates(ctx); err != nil {
		return nil, err
	}
	a.startTracking()
	a.startPortal(a.startSite())
	a.wireNotifier()
	if err := a.startConsole(); err != nil {
		return nil, err
	}
	return a, nil
}

// startOAuth wires the sign-in and token service at the gateway root and
// the audit trail it writes. It reads the registry only once serving, when
// every module is mounted.
func (a *App) startOAuth(ctx context.Context) error {
	svc, err := oauth.New(ctx, oauth.Deps{
		Config: a.Config, Store: a.Store, Identity: a.Identity, Minter: a.Minter, Verifier: a.Verifier, Keys: a.Keys,
		Registry: a.Registry, Audit: a.Audit, Revoked: a.Revocations, Log: a.Log,
	}, oauth.Options{CodeTTL: a.Config.OAuthCodeTTL, AccessTTL: a.Config.AccessTokenTTL, RefreshTTL: a.Config.RefreshTokenTTL,
		SweepAlso: consoleExpiring})
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	a.OAuth = svc
	svc.Routes(a.API.Engine())
	return nil
}

// openVault gives the App the credential vault: PLATFORM_MASTER_KEY, or
// for the embedded store <data>/master.key (generated on first start). A
// process without a key still starts, with credential storage off; a key
// that cannot open the store's sealed values stops it (unless
// PLATFORM_ACCEPT_LOST_MASTER_KEY gives them up), and a key generated for
// a missing key file is written only once the store accepted it.
func (a *App) openVault(ctx context.Context) error {
	key, generated, err := credentials.LoadMasterKey(a.Config)
	if errors.Is(err, credentials.ErrNoMasterKey) {
		a.Log.Warn("credential storage is off", "reason", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	accept, err := credentials.AcceptedMasterKeys(a.Config)
	if err != nil {
		return err
	}
	v, err := credentials.NewVault(key, accept...)
	if err != nil {
		return err
	}
	kc := credentials.KeyCheck{Generated: generated, AcceptLoss: a.Config.AcceptLostMasterKey}
	source := "PLATFORM_MASTER_KEY"
	if a.Config.MasterKey == "" {
		source, kc.KeyFile = credentials.MasterKeyPath(a.Config), credentials.MasterKeyPath(a.Config)
	}
	lost, err := v.Check(ctx, a.Store, kc)
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	if lost != "" {
		a.Log.Warn("started with another master key: the values sealed under the lost one stay unreadable until set again (webhook secrets, credentials)",
			"lostKeyId", lost, "keyId", v.KeyID(), "setting", "PLATFORM_ACCEPT_LOST_MASTER_KEY")
	}
	if generated {
		if err := credentials.SaveMasterKey(a.Config, key); err != nil {
			return err
		}
	}
	a.Vault = v
	a.Log.Info("credential vault ready", "keySource", source, "keyId", v.KeyID())
	return nil
}

func (a *App) ensureIndexes(ctx context.Context) error {
	if err := a.Identity.EnsureIndexes(ctx); err != nil {
		return err
	}
	if err := a.Store.EnsureIndexes(ctx, events.Collection, true, events.Indexes); err != nil {
		return err
	}
	if err := a.aggregationIndexes(ctx); err != nil {
		return err
	}
	if err := a.retention().EnsureIndexes(ctx); err != nil {
		return err
	}
	return automation.BackfillSubscriptions(ctx, a.Store)
}

// wireEvents lets stored events start their dispatch workflows, and actions
// start workflows, when the process has a Temporal client.
func (a *App) wireEvents(svc *resource.Service) error {
	g, err := outbound.New(a.Config.OutboundAllow)
	if err != nil {
		return err
	}
	a.Outbound = g
	if a.Temporal == nil {
		return nil
	}
	// Until this process runs a dispatcher (Worker), its events are
	// hinted to the dispatchers of the worker processes.
	a.hinter = &dispatch.Hinter{Store: a.Store, Log: a.Log}
	a.Events.Notifier = a.hinter
	svc.Workflows = a.starter(a.Config.TaskQueue)
	return nil
}

func (a *App) starter(taskQueue string) *temporalx.Starter {
	return &temporalx.Starter{Client: a.Temporal, TaskQueue: taskQueue}
}

// Worker returns the Temporal workers, one per kind of work on the queues
// named after taskQueue (app/queues.go), with every workflow and activity,
// and the event sweeper that runs with them.
func (a *App) Worker(taskQueue string) sdkworker.Worker {
	acts := worker.Activities{
		System:      &system.Activities{Store: a.Store, Bugs: a.Bugs},
		Delivery:    a.deliveryActivities(),
		Pipelines:   a.pipelineActivities(),
		Maintenance: a.MaintenanceActivities(),
		Coupons:     a.couponActivities(),
		Newsletters: a.newsletterActivities(),
		Rendering:   a.renderActivities(),

		Notifications: a.notificationActivities(),
		Credentials:   a.credentialActivities(),
		Computing:     a.computingActivities(),
		MasterKey:     a.masterKeyActivities(),
		Ads:           a.adsActivities(),
		Aggregation:   a.aggregationActivities(),
	}
	acts.Delivery.Notifications = acts.Notifications
	a.wireAggregation(acts, a.dispatcher(acts.Delivery))
	return &dispatch.Worker{Worker: a.workers(taskQueue, acts), Dispatcher: a.dispatcher(acts.Delivery)}
}

// dispatcher is the process's one event dispatcher. Events this process
// stores go to it directly (platform dev runs the API and the worker in
// one process): no hint, no sweep.
func (a *App) dispatcher(acts *delivery.Activities) *dispatch.Dispatcher {
	if a.dispatch == nil {
		a.dispatch = dispatch.NewDispatcher(dispatch.Deps{Store: a.Store, Deliveries: acts, Customers: a.Identity,
			Log: a.Log, Bugs: a.Bugs, Metrics: a.Metrics.Registry}, dispatch.Limits{PerWebhook: a.Config.WebhookLaneConcurrency,
			PerCustomer: a.Config.WebhookCustomerConcurrency, Total: a.Config.WebhookConcurrency})
		if a.hinter != nil {
			a.hinter.Local.Store(a.dispatch)
		}
	}
	return a.dispatch
}
