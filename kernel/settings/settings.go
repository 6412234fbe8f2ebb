// Package settings reads the platform's settings from environment variables
// and flags (flags win) and validates them before anything starts, so a
// wrong value stops the process with one line naming the setting.
package settings

import (
	"flag"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"platform/kernel/auth"
	"platform/workflows/contract"
)

// Config is every setting of every role.
type Config struct {
	DataDir           string
	HTTPAddr          string
	HealthAddr        string // a worker's probe listener; "" = none
	MongoURI          string
	MongoDatabase     string
	StoreAddr         string // embedded MongoDB-wire server (platform infra, or dev with PLATFORM_STORE=ferretdb)
	EmbeddedStore     string // "sqlite" or "ferretdb": the store platform dev embeds without MONGODB_URI
	TemporalAddress   string
	TemporalNamespace string
	TemporalPort      int
	TemporalUIPort    int // UIOff: no UI; 0: any free port
	TaskQueue         string
	// Event dispatch (modules/automation/dispatch.Limits).
	WebhookLaneConcurrency, WebhookCustomerConcurrency, WebhookConcurrency int
	GatewayURL                                                             string
	PlatformDomain                                                         string // module host form: <label>-api.<PlatformDomain>
	ModuleScheme                                                           string
	AuthURL                                                                string
	LoginURL                                                               string
	AuditURL                                                               string
	TrackingURL                                                            string
	RateLimit                                                              int
	RateWindow                                                             time.Duration
	OutboundAllow                                                          []string
	WebhookTimeout                                                         time.Duration // one webhook delivery attempt
	NotifyAttempts                                                         int           // attempts of one routed notification
	NotifyFirstRetry                                                       time.Duration // wait before its first retry; doubles per retry
	PipelineChainMax                                                       int           // pipeline runs in an event's causation chain
	CronMinInterval                                                        time.Duration // the shortest interval cron triggers may fire at
	AdminPassword                                                          string
	LogLevel                                                               string
	MaxBodyBytes                                                           int64
	MaxAssetBytes                                                          int64 // largest file of a config asset
	ShutdownTimeout                                                        time.Duration
	DrainDelay                                                             time.Duration
	SandboxSize                                                            int // sandbox child processes kept per process
	HookRateLimit                                                          int // calls per minute of one incoming-webhook URL

	// The webhook circuit breaker: a webhook is disabled after this many
	// deliveries in a row were parked with no success in between, or once
	// every attempt failed for this long; 0 turns a rule off.
	WebhookDisableAfterParked int
	WebhookDisableAfter       time.Duration

	// Slots bound, per worker process, the Temporal worker of each kind
	// of work (its own task queue; contract.Kind).
	Slots map[contract.Kind]QueueSlots

	// RateTokenShare is the percentage of RateLimit one access token may
	// use, so that one runaway integration cannot starve its customer's
	// other apps. RateLimitAnonymous is the budget per window of one client
	// address for calls without a valid token (401s, OpenAPI documents,
	// public routes, unmatched paths).
	RateTokenShare     int
	RateLimitAnonymous int

	// MailInboundToken is the credential of the mail provider's bounce
	// and complaint intake (/marketing/inbound/...); empty: intake off.
	MailInboundToken string

	// Lifetimes of the OAuth service's authorization codes, access tokens
	// (also `platform token`'s default) and refresh tokens, and how often
	// the schedule sweeps what has expired.
	OAuthCodeTTL       time.Duration
	AccessTokenTTL     time.Duration
	RefreshTokenTTL    time.Duration
	OAuthSweepInterval time.Duration

	// Retention of dispatched events, webhook delivery attempt records and
	// finished pipeline run records, and how often the schedule removes
	// what is older (and prunes unused event subscriptions).
	EventRetention    time.Duration
	DeliveryRetention time.Duration
	RunRetention      time.Duration
	RetentionInterval time.Duration

	// SandboxQueueTimeout is how long a call waits for a free sandbox
	// child before it is refused (503, or a retryable step failure).
	SandboxQueueTimeout time.Duration
	// StartupTimeout bounds how long start-up retries a failure other than
	// an unreachable store or Temporal, which is waited for without end.
	StartupTimeout time.Duration
	// HTTP time-outs (api.NewHTTPServer): the headers, the whole request
	// (headers and body), and an idle keep-alive connection.
	HTTPReadHeaderTimeout time.Duration
	HTTPReadTimeout       time.Duration
	HTTPIdleTimeout       time.Duration

	// SandboxCommand starts a sandbox child (default: this executable's
	// `sandbox` subcommand); tests point it at the test binary. SandboxEnv
	// is added to the child's environment. Neither is a setting.
	SandboxCommand []string
	SandboxEnv     []string
	// MasterKey (PLATFORM_MASTER_KEY) encrypts the stored credentials
	// (package credentials); never logged nor shown in --help.
	MasterKey string
	// MasterKeyAccept (PLATFORM_MASTER_KEY_ACCEPT) are further master keys
	// whose sealed values are opened but never sealed with: the other key
	// while a rotation runs (docs/config-keys.md). Never logged.
	MasterKeyAccept []string
	// AcceptLostMasterKey (PLATFORM_ACCEPT_LOST_MASTER_KEY) starts with a
	// master key that cannot open the store's sealed values, giving them
	// up (credentials.KeyCheck); without it such a start is refused.
	AcceptLostMasterKey bool

	// Notification channels (package notify); an empty address or URL turns the channel off.
	SMTPAddr     string // host:port of the SMTP server
	SMTPFrom     string
	SMTPUsername string
	SMTPPassword string // never logged nor shown in --help
	SMTPTLS      string // none, starttls or tls
	SMTPHelo     string // name sent with EHLO; empty: the host name
	SMSURL       string
	SMSToken     string // never logged nor shown in --help
	PushURL      string
	PushToken    string // never logged nor shown in --help

	// NewsletterRate is how many mails per second one newsletter send
	// submits at most (PLATFORM_NEWSLETTER_RATE; docs/newsletters.md).
	NewsletterRate float64
	// NewsletterLease is how long a recipient's claim in the send ledger
	// keeps other attempts off it; one SMTP transaction is bounded by
	// half of it (PLATFORM_NEWSLETTER_LEASE; docs/newsletters.md).
	NewsletterLease time.Duration
	// HubSiteURL is the base of the wiki pages' public addresses
	// (<base>/<kb>/<slug>), where cross-links point (PLATFORM_HUB_SITE_URL).
	HubSiteURL string
	// The machine-translation provider of the translate actions (DeepL's
	// API v2 shape); empty URL: translation off.
	TranslateURL, TranslateKey string
	// The language model of the CMS's generate-blocks action (the OpenAI
	// chat-completions shape); empty URL: generation off.
	LLMURL, LLMKey, LLMModel string
	// SiteCustomer is the slug of the customer whose published pages the
	// gateway serves at /site/<locale>/<slug>; others' pages are served on
	// their custom domains (PLATFORM_SITE_CUSTOMER; docs/cms.md).
	SiteCustomer string
	// Release names this deployment: the _appName its modules register
	// their platform states under (PLATFORM_RELEASE).
	Release string
	// Computing is where computing entities are started and stopped
	// (computing.go).
	Computing ComputingSettings
	// CountCap is how many matches a filtered list's total counts at most
	// (PLATFORM_COUNT_CAP; counts.go).
	CountCap int64
	// Console shapes the admin console (console.go).
	Console ConsoleSettings
	// EmbeddedTemporalUI is the Web UI of the Temporal server this process
	// started (not a setting; TemporalUI).
	EmbeddedTemporalUI string
	// Ads is the advertising platform of the ads module (ads.go).
	Ads AdsSettings
}

// setting is one configurable value: its env name, flag name, default and parser.
type setting struct {
	env, flag, def, help string
	apply                func(c *Config, v string) error
}

// InvalidError names the setting (or a command's flag: no Env) that failed
// validation.
type InvalidError struct {
	Env, Flag, Value, Reason string
}

func (e *InvalidError) Error() string {
	if e.Env == "" { // a flag of one command, not a setting
		return fmt.Sprintf("invalid flag --%s = %q: %s", e.Flag, e.Value, e.Reason)
	}
	return fmt.Sprintf("invalid setting %s (--%s) = %q: %s", e.Env, e.Flag, e.Value, e.Reason)
}

func settings() []setting {
	return append([]setting{
		{"PLATFORM_DATA", "data", "./data", "directory of the embedded stores", func(c *Config, v string) error { c.DataDir = v; return nonEmpty(v) }},
		{"PLATFORM_HTTP_ADDR", "http", ":8080", "HTTP listen address", func(c *Config, v string) error { c.HTTPAddr = v; return hostPort(v) }},
		{"PLATFORM_HEALTH_ADDR", "health-addr", "", "worker: where it answers health probes (/healthz, /readyz, /metrics); empty: none", func(c *Config, v string) error {
			c.HealthAddr = v
			if v == "" {
				return nil
			}
			return hostPort(v)
		}},
		{"MONGODB_URI", "mongodb-uri", "", "MongoDB URI; empty: embedded store", func(c *Config, v string) error { c.MongoURI = v; return mongoURI(v) }},
		{"PLATFORM_MONGODB_DATABASE", "mongodb-database", "platform", "MongoDB database name", func(c *Config, v string) error { c.MongoDatabase = v; return nonEmpty(v) }},
		{"PLATFORM_STORE_ADDR", "store-addr", "127.0.0.1:27017", "address of the embedded MongoDB-wire server", func(c *Config, v string) error { c.StoreAddr = v; return hostPort(v) }},
		{"PLATFORM_EMBEDDED_STORE", "embedded-store", "sqlite", "embedded store without MONGODB_URI: sqlite (fast) or ferretdb (MongoDB wire protocol)", func(c *Config, v string) error { c.EmbeddedStore = v; return oneOf(v, "ferretdb", "sqlite") }},
		{"TEMPORAL_ADDRESS", "temporal-address", "", "Temporal frontend host:port; empty: embedded server", func(c *Config, v string) error { c.TemporalAddress = v; return optional(v, hostPort) }},
		{"TEMPORAL_NAMESPACE", "temporal-namespace", "default", "Temporal namespace", func(c *Config, v string) error { c.TemporalNamespace = v; return nonEmpty(v) }},
		{"PLATFORM_TEMPORAL_PORT", "temporal-port", "7233", "embedded Temporal frontend port (0: any free port)", func(c *Config, v string) (err error) { c.TemporalPort, err = port(v); return }},
		{"PLATFORM_TEMPORAL_UI_PORT", "temporal-ui-port", "8233", "embedded Temporal Web UI port (0: any free port; off: no UI)", func(c *Config, v string) (err error) { c.TemporalUIPort, err = uiPort(v); return }},
		{"PLATFORM_TASK_QUEUE", "task-queue", "platform", "Temporal task queue of the worker", func(c *Config, v string) error { c.TaskQueue = v; return nonEmpty(v) }},
		{"PLATFORM_GATEWAY_URL", "gateway-url", "http://localhost:8080", "public base URL of the gateway", func(c *Config, v string) error { c.GatewayURL = strings.TrimRight(v, "/"); return absURL(v) }},
		{"PLATFORM_DOMAIN", "domain", "localhost:8080", "module hosts are <label>-api.<domain>", func(c *Config, v string) error { c.PlatformDomain = v; return nonEmpty(v) }},
		{"PLATFORM_MODULE_SCHEME", "module-scheme", "http", "scheme of module base URLs", func(c *Config, v string) error { c.ModuleScheme = v; return oneOf(v, "http", "https") }},
		{"PLATFORM_AUTH_URL", "auth-url", "", "base URL of the token service (default: gateway)", func(c *Config, v string) error { c.AuthURL = strings.TrimRight(v, "/"); return optional(v, absURL) }},
		{"PLATFORM_LOGIN_URL", "login-url", "", "base URL of the consent screen (default: gateway)", func(c *Config, v string) error { c.LoginURL = strings.TrimRight(v, "/"); return optional(v, absURL) }},
		{"PLATFORM_AUDIT_URL", "audit-url", "", "base URL of the audit trail (default: gateway/audit)", func(c *Config, v string) error { c.AuditURL = strings.TrimRight(v, "/"); return optional(v, absURL) }},
		{"PLATFORM_TRACKING_URL", "tracking-url", "", "base URL of mail tracking (default: gateway/t)", func(c *Config, v string) error { c.TrackingURL = strings.TrimRight(v, "/"); return optional(v, absURL) }},
		{"PLATFORM_MAIL_INBOUND_TOKEN", "mail-inbound-token", "", "token the mail provider sends to the bounce and complaint intake (at least 32 characters; empty: intake off)", func(c *Config, v string) error {
			c.MailInboundToken = v
			if v != "" && len(v) < 32 {
				return fmt.Errorf("want at least 32 characters")
			}
			return nil
		}},
		{"PLATFORM_RATE_LIMIT", "rate-limit", "2500", "requests per window per customer", func(c *Config, v string) (err error) { c.RateLimit, err = positive(v); return }},
		{"PLATFORM_RATE_LIMIT_TOKEN_SHARE", "rate-limit-token-share", "50", "percentage of the customer's rate limit one access token may use (1 to 100)", func(c *Config, v string) (err error) { c.RateTokenShare, err = percent(v); return }},
		{"PLATFORM_RATE_LIMIT_ANONYMOUS", "rate-limit-anonymous", "300", "requests per window per client address without a valid token", func(c *Config, v string) (err error) { c.RateLimitAnonymous, err = positive(v); return }},
		{"PLATFORM_RATE_WINDOW", "rate-window", "1m", "rate-limit window", func(c *Config, v string) (err error) { c.RateWindow, err = duration(v); return }},
		{"PLATFORM_OUTBOUND_ALLOW", "outbound-allow", "", "hosts, host:port or CIDRs outbound calls may reach although private", func(c *Config, v string) error { c.OutboundAllow = splitList(v); return allowList(c.OutboundAllow) }},
		{"PLATFORM_WEBHOOK_TIMEOUT", "webhook-timeout", "10s", "time-out of one webhook delivery attempt (at most 4m)", func(c *Config, v string) (err error) { c.WebhookTimeout, err = atMost(v, MaxWebhookTimeout); return }},
		{"PLATFORM_NOTIFY_ATTEMPTS", "notify-attempts", "6", "attempts of one routed notification before it is recorded failed", func(c *Config, v string) (err error) { c.NotifyAttempts, err = positive(v); return }},
		{"PLATFORM_NOTIFY_FIRST_RETRY", "notify-first-retry", "10s", "wait before a routed notification's first retry; it doubles per retry, up to 10m", func(c *Config, v string) (err error) { c.NotifyFirstRetry, err = duration(v); return }},
		{"PLATFORM_WEBHOOK_LANE_CONCURRENCY", "webhook-lane-concurrency", "16", "first delivery attempts one dispatcher makes at once to one webhook", func(c *Config, v string) (err error) { c.WebhookLaneConcurrency, err = positive(v); return }},
		{"PLATFORM_WEBHOOK_CUSTOMER_CONCURRENCY", "webhook-customer-concurrency", "128", "first delivery attempts one dispatcher makes at once for one customer, over all its webhooks", func(c *Config, v string) (err error) { c.WebhookCustomerConcurrency, err = positive(v); return }},
		{"PLATFORM_WEBHOOK_CONCURRENCY", "webhook-concurrency", "256", "first delivery attempts one dispatcher makes at once in all", func(c *Config, v string) (err error) { c.WebhookConcurrency, err = positive(v); return }},
		{"PLATFORM_WEBHOOK_DISABLE_AFTER_PARKED", "webhook-disable-after-parked", "50", "disable a webhook once this many of its deliveries in a row were parked with no success in between (0: never; at most 100000)", func(c *Config, v string) (err error) {
			c.WebhookDisableAfterParked, err = countUpTo(v, MaxWebhookDisableAfterParked)
			return
		}},
		{"PLATFORM_WEBHOOK_DISABLE_AFTER", "webhook-disable-after", "24h", "disable a webhook once every delivery attempt failed for this long (0: never; else 1h to 8760h)", func(c *Config, v string) (err error) {
			c.WebhookDisableAfter, err = offOrBetween(v, time.Hour, MaxWebhookDisableAfter)
			return
		}},
		{"PLATFORM_PIPELINE_CHAIN_MAX", "pipeline-chain-max", "8", "pipeline runs one event may descend from through db steps' writes before a further run is refused", func(c *Config, v string) (err error) { c.PipelineChainMax, err = positive(v); return }},
		{"PLATFORM_CRON_MIN_INTERVAL", "cron-min-interval", "1m", "the shortest interval a cron trigger may fire at (at least 1s)", func(c *Config, v string) (err error) {
			c.CronMinInterval, err = time.ParseDuration(v)
			if err != nil || c.CronMinInterval < time.Second {
				return fmt.Errorf("want a duration of at least 1s, such as 1m")
			}
			return nil
		}},
		{"PLATFORM_ADMIN_PASSWORD", "admin-password", "", "password of the seeded admin (default: generated)", func(c *Config, v string) error { c.AdminPassword = v; return nil }},
		{"PLATFORM_LOG_LEVEL", "log-level", "info", "debug, info, warn or error", func(c *Config, v string) error { c.LogLevel = v; return oneOf(v, "debug", "info", "warn", "error") }},
		{"PLATFORM_MAX_BODY", "max-body", "1048576", "largest accepted request body in bytes", func(c *Config, v string) error { n, err := positive(v); c.MaxBodyBytes = int64(n); return err }},
		{"PLATFORM_MAX_ASSET", "max-asset", "2097152", "largest file of a config asset (logo, icon, font) in bytes", func(c *Config, v string) error { n, err := positive(v); c.MaxAssetBytes = int64(n); return err }},
		{"PLATFORM_DRAIN_DELAY", "drain-delay", "1s", "after SIGTERM, answer /readyz 503 and keep serving this long before closing the listener", func(c *Config, v string) (err error) {
			c.DrainDelay, err = time.ParseDuration(v)
			if err != nil || c.DrainDelay < 0 {
				return fmt.Errorf("want a duration such as 0s or 5s")
			}
			return nil
		}},
		{"PLATFORM_SANDBOX_SIZE", "sandbox-size", "2", "sandbox child processes that run user code (functions, transforms)", func(c *Config, v string) (err error) { c.SandboxSize, err = positive(v); return }},
		{"PLATFORM_SANDBOX_QUEUE_TIMEOUT", "sandbox-queue-timeout", "5s", "how long a call of user code waits for a free sandbox child before it is refused with 503 (at most 10s)", func(c *Config, v string) (err error) {
			c.SandboxQueueTimeout, err = atMost(v, MaxSandboxQueueTimeout)
			return
		}},
		{"PLATFORM_HOOK_RATE_LIMIT", "hook-rate-limit", "60", "calls per minute one incoming-webhook trigger URL accepts", func(c *Config, v string) (err error) { c.HookRateLimit, err = positive(v); return }},
		{"PLATFORM_OAUTH_CODE_TTL", "oauth-code-ttl", "1m", "lifetime of an OAuth authorization code (at most 10m)", func(c *Config, v string) (err error) { c.OAuthCodeTTL, err = atMost(v, MaxOAuthCodeTTL); return }},
		{"PLATFORM_ACCESS_TOKEN_TTL", "access-token-ttl", "1h", "lifetime of an access token from the OAuth service, and the default of platform token --ttl (at most 24h)", func(c *Config, v string) (err error) { c.AccessTokenTTL, err = atMost(v, auth.MaxTokenTTL); return }},
		{"PLATFORM_REFRESH_TOKEN_TTL", "refresh-token-ttl", "720h", "lifetime of an OAuth refresh token; each refresh starts it again (at most 8760h)", func(c *Config, v string) (err error) { c.RefreshTokenTTL, err = atMost(v, MaxRefreshTokenTTL); return }},
		{"PLATFORM_OAUTH_SWEEP_INTERVAL", "oauth-sweep-interval", "1h", "how often the schedule removes expired OAuth codes, sessions, token records and sign-in counts (1m to 24h)", func(c *Config, v string) (err error) {
			c.OAuthSweepInterval, err = between(v, time.Minute, 24*time.Hour)
			return
		}},
		{"PLATFORM_EVENT_RETENTION", "event-retention", "720h", "how long a dispatched event is kept (1h to 87600h); undispatched events and those of parked deliveries stay", func(c *Config, v string) (err error) {
			c.EventRetention, err = between(v, time.Hour, MaxRetention)
			return
		}},
		{"PLATFORM_DELIVERY_RETENTION", "delivery-retention", "720h", "how long a webhook delivery attempt record is kept (1h to 87600h)", func(c *Config, v string) (err error) {
			c.DeliveryRetention, err = between(v, time.Hour, MaxRetention)
			return
		}},
		{"PLATFORM_RUN_RETENTION", "run-retention", "720h", "how long a finished pipeline run record is kept (1h to 87600h); running runs stay", func(c *Config, v string) (err error) {
			c.RunRetention, err = between(v, time.Hour, MaxRetention)
			return
		}},
		{"PLATFORM_RETENTION_INTERVAL", "retention-interval", "1h", "how often the schedule removes what is past its retention and unused event subscriptions (1m to 24h)", func(c *Config, v string) (err error) {
			c.RetentionInterval, err = between(v, time.Minute, 24*time.Hour)
			return
		}},
		{"PLATFORM_SHUTDOWN_TIMEOUT", "shutdown-timeout", "30s", "how long SIGTERM waits for in-flight work", func(c *Config, v string) (err error) { c.ShutdownTimeout, err = duration(v); return }},
		{"PLATFORM_STARTUP_TIMEOUT", "startup-timeout", "2m", "how long start-up retries a failure other than an unreachable store or Temporal (those are waited for without end) before the process exits", func(c *Config, v string) (err error) { c.StartupTimeout, err = duration(v); return }},
		{"PLATFORM_HTTP_READ_HEADER_TIMEOUT", "http-read-header-timeout", "10s", "time a client has to send a request's headers", func(c *Config, v string) (err error) { c.HTTPReadHeaderTimeout, err = duration(v); return }},
		{"PLATFORM_HTTP_READ_TIMEOUT", "http-read-timeout", "30s", "time a client has to send a whole request, headers and body", func(c *Config, v string) (err error) { c.HTTPReadTimeout, err = duration(v); return }},
		{"PLATFORM_HTTP_IDLE_TIMEOUT", "http-idle-timeout", "2m", "how long an idle keep-alive connection stays open", func(c *Config, v string) (err error) { c.HTTPIdleTimeout, err = duration(v); return }},
		{"PLATFORM_MASTER_KEY", "master-key", "", "master key of the credential encryption: 32 random bytes as base64 or 64 hex characters, the same for every process; empty: generated once into <data>/master.key for the embedded store", func(c *Config, v string) error {
			c.MasterKey = strings.TrimSpace(v)
			return optional(c.MasterKey, func(k string) error { _, err := ParseMasterKey(k); return err })
		}},
		{"PLATFORM_MASTER_KEY_ACCEPT", "master-key-accept", "", "further master keys, comma-separated, whose sealed values are opened but never sealed with: the other key while a master key rotation runs (docs/config-keys.md)", func(c *Config, v string) error {
			c.MasterKeyAccept = nil
			for _, k := range strings.Split(v, ",") {
				if k = strings.TrimSpace(k); k == "" {
					continue
				}
				if _, err := ParseMasterKey(k); err != nil {
					return err
				}
				c.MasterKeyAccept = append(c.MasterKeyAccept, k)
			}
			return nil
		}},
		{"PLATFORM_SMTP_ADDR", "smtp-addr", "", "SMTP server host:port of the mail notification channel; empty: mail off", func(c *Config, v string) error { c.SMTPAddr = v; return optional(v, hostPort) }},
		{"PLATFORM_SMTP_FROM", "smtp-from", "platform@localhost", "sender address of notification mails", func(c *Config, v string) error { c.SMTPFrom = v; return mailAddress(v) }},
		{"PLATFORM_SMTP_USERNAME", "smtp-username", "", "SMTP AUTH user; empty: no AUTH", func(c *Config, v string) error { c.SMTPUsername = v; return nil }},
		{"PLATFORM_SMTP_PASSWORD", "smtp-password", "", "SMTP AUTH password", func(c *Config, v string) error { c.SMTPPassword = v; return nil }},
		{"PLATFORM_SMTP_HELO", "smtp-helo", "", "name sent with EHLO (default: this machine's host name)", func(c *Config, v string) error { c.SMTPHelo = v; return nil }},
		{"PLATFORM_SMTP_TLS", "smtp-tls", "starttls", "SMTP encryption: starttls (required), tls (implicit, port 465) or none (tests and local relays)", func(c *Config, v string) error { c.SMTPTLS = v; return oneOf(v, "none", "starttls", "tls") }},
		{"PLATFORM_SMS_URL", "sms-url", "", "URL the sms notification channel POSTs {to, body} to; empty: sms off", func(c *Config, v string) error { c.SMSURL = v; return optional(v, absURL) }},
		{"PLATFORM_SMS_TOKEN", "sms-token", "", "bearer token sent to PLATFORM_SMS_URL", func(c *Config, v string) error { c.SMSToken = v; return nil }},
		{"PLATFORM_PUSH_URL", "push-url", "", "URL the push notification channel POSTs {to, title, body, data} to; empty: push off", func(c *Config, v string) error { c.PushURL = v; return optional(v, absURL) }},
		{"PLATFORM_PUSH_TOKEN", "push-token", "", "bearer token sent to PLATFORM_PUSH_URL", func(c *Config, v string) error { c.PushToken = v; return nil }},
		{"PLATFORM_NEWSLETTER_RATE", "newsletter-rate", "20", "mails per second one newsletter send submits at most (0.01 to 10000); the SMTP server's own limits are met by backing off on its 4xx replies", func(c *Config, v string) (err error) {
			c.NewsletterRate, err = rate(v)
			return
		}},
		{"PLATFORM_HUB_SITE_URL", "hub-site-url", "", "base URL of the public knowledge base site: a wiki page is at <base>/<kbslug>/<slug> (default: <gateway url>/kb)", func(c *Config, v string) error {
			c.HubSiteURL = strings.TrimRight(v, "/")
			return optional(v, absURL)
		}},
		{"PLATFORM_TRANSLATE_URL", "translate-url", "", "base URL of the machine-translation provider (the DeepL API v2 shape, e.g. https://api-free.deepl.com); empty: the translate actions answer 503", func(c *Config, v string) error {
			c.TranslateURL = strings.TrimRight(v, "/")
			return optional(v, absURL)
		}},
		{"PLATFORM_TRANSLATE_KEY", "translate-key", "", "the translation provider's API key (never logged)", func(c *Config, v string) error { c.TranslateKey = v; return nil }},
		{"PLATFORM_LLM_URL", "llm-url", "", "base URL of the language model API of generate-blocks (the OpenAI chat-completions shape, e.g. https://api.openai.com/v1); empty: generate-blocks answers 503", func(c *Config, v string) error {
			c.LLMURL = strings.TrimRight(v, "/")
			return optional(v, absURL)
		}},
		{"PLATFORM_LLM_KEY", "llm-key", "", "the language model API's key (never logged)", func(c *Config, v string) error { c.LLMKey = v; return nil }},
		{"PLATFORM_LLM_MODEL", "llm-model", "gpt-4o-mini", "the model an AI library without model.name uses", func(c *Config, v string) error { c.LLMModel = v; return nil }},
		{"PLATFORM_SITE_CUSTOMER", "site-customer", "", "slug of the customer whose published CMS pages the gateway serves at /site/<locale>/<slug> (empty: the dev seed customer, demo); other customers' pages are served on their custom domains", func(c *Config, v string) error { c.SiteCustomer = v; return nil }},
		{"PLATFORM_NEWSLETTER_LEASE", "newsletter-lease", "2m", "how long a newsletter recipient's claim keeps other attempts off it after a worker died (2s to 1h); one SMTP transaction may take at most half of it, up to 45s", func(c *Config, v string) (err error) {
			c.NewsletterLease, err = between(v, 2*time.Second, time.Hour)
			return
		}},
	}, slices.Concat(slotSettings(), computingSettings(), countSettings(), consoleSettings(), adsSettings(), masterKeySettings())...)
}

// Load parses args (flags) over the environment. The returned error is a
// single line naming the setting; -h, --help and --help-settings answer
// *Help, a command line it cannot read *UsageError.
func Load(name string, args []string, extra ...func(fs *flag.FlagSet)) (*Config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	quiet(fs)
	for _, add := range extra {
		add(fs)
	}
	own := ownFlags(fs)
	fs.Bool(helpSettingsFlag, false, "list the settings")
	all := settings()
	vals := make([]*string, len(all))
	for i, s := range all {
		def := s.def
		if v, ok := os.LookupEnv(s.env); ok {
			def = v
		}
		vals[i] = &def
		if boolSettings[s.env] {
			fs.Var(boolValue{vals[i]}, s.flag, s.help+" ("+s.env+")")
		} else {
			fs.StringVar(vals[i], s.flag, def, s.help+" ("+s.env+")")
		}
	}
	if err := parse(name, fs, args, own, all); err != nil {
		return nil, err
	}
	c := &Config{}
	for i, s := range all {
		if err := s.apply(c, *vals[i]); err != nil {
			val := *vals[i]
			if secretSettings[s.env] {
				val = "(hidden)"
			}
			return nil, &InvalidError{Env: s.env, Flag: s.flag, Value: val, Reason: err.Error()}
		}
	}
	c.fillDefaults()
	return c, nil
}

func (c *Config) fillDefaults() {
	if c.AuthURL == "" {
		c.AuthURL = c.GatewayURL
	}
	if c.LoginURL == "" {
		c.LoginURL = c.GatewayURL
	}
	if c.AuditURL == "" {
		c.AuditURL = c.GatewayURL + "/audit"
	}
	if c.TrackingURL == "" {
		c.TrackingURL = c.GatewayURL + "/t"
	}
	if c.HubSiteURL == "" {
		c.HubSiteURL = c.GatewayURL + "/kb"
	}
}

// UsesEmbeddedSQLite says whether the store is the embedded SQLite file.
func (c *Config) UsesEmbeddedSQLite() bool { return c.MongoURI == "" && c.EmbeddedStore == "sqlite" }

// SQLitePath is the embedded store's file.
func (c *Config) SQLitePath() string { return filepath.Join(c.DataDir, "store", "platform.db") }

// AdminSocket is where a running `platform dev` answers admin commands.
func (c *Config) AdminSocket() string { return filepath.Join(c.DataDir, "admin.sock") }

// TokenRateLimit is one access token's share of its customer's limit
// per window, at least one request.
func (c *Config) TokenRateLimit() int { return max(c.RateLimit*c.RateTokenShare/100, 1) }

// ModuleBaseURL is {module_base_url} of a module's host label.
func (c *Config) ModuleBaseURL(label string) string {
	return c.ModuleScheme + "://" + label + "-api." + c.PlatformDomain
}

// secretSettings are never shown: --help leaves out their values, and
// InvalidError never quotes one.
var secretSettings = map[string]bool{"PLATFORM_MASTER_KEY": true, "PLATFORM_MASTER_KEY_ACCEPT": true, "PLATFORM_SMTP_PASSWORD": true, "PLATFORM_SMS_TOKEN": true, "PLATFORM_PUSH_TOKEN": true, "PLATFORM_TRANSLATE_KEY": true, "PLATFORM_LLM_KEY": true, "PLATFORM_COMPUTE_TOKEN": true}

func mailAddress(v string) error {
	if _, err := mail.ParseAddress(v); err != nil {
		return fmt.Errorf("want a mail address such as platform@example.com")
	}
	return nil
}

func nonEmpty(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("must not be empty")
	}
	return nil
}

func optional(v string, check func(string) error) error {
	if v == "" {
		return nil
	}
	return check(v)
}

func hostPort(v string) error {
	_, p, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("want host:port")
	}
	_, err = port(p)
	return err
}

func port(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		return 0, fmt.Errorf("want a port number 0-65535")
	}
	return n, nil
}

// UIOff is PLATFORM_TEMPORAL_UI_PORT=off: the embedded Temporal runs
// without its Web UI.
const UIOff = -1

func uiPort(v string) (int, error) {
	if v == "off" {
		return UIOff, nil
	}
	n, err := port(v)
	if err != nil {
		return 0, fmt.Errorf("want a port number 0-65535 (0: any free port) or off")
	}
	return n, nil
}

func positive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive whole number")
	}
	return n, nil
}

// rate reads a positive rate per second, from 0.01 to 10,000.
func rate(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0.01 || f > 10_000 {
		return 0, fmt.Errorf("want a rate per second from 0.01 to 10000")
	}
	return f, nil
}

func percent(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 100 {
		return 0, fmt.Errorf("want a whole percentage from 1 to 100")
	}
	return n, nil
}

func duration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration such as 30s or 1m")
	}
	return d, nil
}

// MaxRetention bounds the retention settings (ten years): longer is
// "forever", which the platform does not offer for records that only grow.
const MaxRetention = 87600 * time.Hour

// MaxWebhookTimeout bounds PLATFORM_WEBHOOK_TIMEOUT: the delivery workflow
// gives each attempt five minutes before Temporal counts it as lost.
const MaxWebhookTimeout = 4 * time.Minute

// MaxSandboxQueueTimeout bounds PLATFORM_SANDBOX_QUEUE_TIMEOUT: a pipeline
// step's local activity has 45 s for the queue, the code's 30 s at most
// and the kill of a runaway child.
const MaxSandboxQueueTimeout = 10 * time.Second

// MaxOAuthCodeTTL bounds PLATFORM_OAUTH_CODE_TTL: RFC 6749 §4.1.2 asks for
// at most 10 minutes (a code is redeemed right after the redirect).
const MaxOAuthCodeTTL = 10 * time.Minute

// MaxRefreshTokenTTL bounds PLATFORM_REFRESH_TOKEN_TTL (one year): a grant
// unused for longer signs in again.
const MaxRefreshTokenTTL = 365 * 24 * time.Hour

// MaxWebhookDisableAfterParked and MaxWebhookDisableAfter bound the
// breaker's thresholds: past them a webhook that never succeeds would
// fail for ever (0 turns a rule off instead).
const (
	MaxWebhookDisableAfterParked = 100_000
	MaxWebhookDisableAfter       = 8760 * time.Hour
)

// countUpTo reads a whole number from 0 to most.
func countUpTo(v string, most int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > most {
		return 0, fmt.Errorf("want a whole number from 0 to %d", most)
	}
	return n, nil
}

// offOrBetween reads 0 (off) or a duration from least to most.
func offOrBetween(v string, least, most time.Duration) (time.Duration, error) {
	if d, err := time.ParseDuration(v); err == nil && d == 0 {
		return 0, nil
	}
	d, err := between(v, least, most)
	if err != nil {
		return 0, fmt.Errorf("want 0 (off) or a duration from %s to %s", least, most)
	}
	return d, nil
}

func between(v string, least, most time.Duration) (time.Duration, error) {
	d, err := atMost(v, most)
	if err == nil && d < least {
		return 0, fmt.Errorf("want at least %s", least)
	}
	return d, err
}

func atMost(v string, limit time.Duration) (time.Duration, error) {
	d, err := duration(v)
	if err == nil && d > limit {
		return 0, fmt.Errorf("want at most %s", limit)
	}
	return d, err
}

func oneOf(v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(allowed, ", "))
}

func absURL(v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want an absolute http(s) URL")
	}
	return nil
}

func mongoURI(v string) error {
	if v == "" {
		return nil
	}
	if !strings.HasPrefix(v, "mongodb://") && !strings.HasPrefix(v, "mongodb+srv://") {
		return fmt.Errorf("want a mongodb:// or mongodb+srv:// URI")
	}
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func allowList(items []string) error {
	for _, it := range items {
		if strings.Contains(it, "/") {
			if _, _, err := net.ParseCIDR(it); err != nil {
				return fmt.Errorf("%q is not a CIDR range", it)
			}
		}
	}
	return nil
}
