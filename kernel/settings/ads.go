package settings

import (
	"fmt"
	"strconv"
	"time"
)

// AdsSettings name the advertising platform the ads module syncs with
// (docs/ads.md): its endpoints, this application's registration there,
// and the sync's rhythm. No API URL: connecting answers 503.
type AdsSettings struct {
	APIURL, AuthURL, TokenURL string
	ClientID, ClientSecret    string
	DeveloperToken            string
	RedirectURL               string // default {gateway}/ads/oauth/callback
	SyncInterval              time.Duration
	StateTTL                  time.Duration
	MetricDays, RevisitDays   int
}

func adsSettings() []setting {
	url := func(env, flag, desc string, dst func(*Config) *string) setting {
		return setting{env, flag, "", desc, func(c *Config, v string) error { *dst(c) = v; return optional(v, absURL) }}
	}
	return []setting{
		url("PLATFORM_ADS_API_URL", "ads-api-url", "base URL of the ad platform's API (version 23; docs/ads.md); empty: ads connections answer 503", func(c *Config) *string { return &c.Ads.APIURL }),
		url("PLATFORM_ADS_AUTH_URL", "ads-auth-url", "the ad platform's OAuth authorization endpoint", func(c *Config) *string { return &c.Ads.AuthURL }),
		url("PLATFORM_ADS_TOKEN_URL", "ads-token-url", "the ad platform's OAuth token endpoint", func(c *Config) *string { return &c.Ads.TokenURL }),
		url("PLATFORM_ADS_REDIRECT_URL", "ads-redirect-url", "the OAuth redirect URL registered at the ad platform (default {gateway}/ads/oauth/callback)", func(c *Config) *string { return &c.Ads.RedirectURL }),
		{"PLATFORM_ADS_CLIENT_ID", "ads-client-id", "", "this application's OAuth client id at the ad platform", func(c *Config, v string) error { c.Ads.ClientID = v; return nil }},
		{"PLATFORM_ADS_CLIENT_SECRET", "ads-client-secret", "", "this application's OAuth client secret at the ad platform (never logged)", func(c *Config, v string) error { c.Ads.ClientSecret = v; return nil }},
		{"PLATFORM_ADS_DEVELOPER_TOKEN", "ads-developer-token", "", "the developer-token header of every API call (never logged)", func(c *Config, v string) error { c.Ads.DeveloperToken = v; return nil }},
		{"PLATFORM_ADS_SYNC_INTERVAL", "ads-sync-interval", "1h", "how often each connected account is synced (1m to 24h)", func(c *Config, v string) (err error) {
			c.Ads.SyncInterval, err = between(v, time.Minute, 24*time.Hour)
			return
		}},
		{"PLATFORM_ADS_STATE_TTL", "ads-state-ttl", "10m", "how long an ads authorization may take (1m to 1h)", func(c *Config, v string) (err error) {
			c.Ads.StateTTL, err = between(v, time.Minute, time.Hour)
			return
		}},
		{"PLATFORM_ADS_METRIC_DAYS", "ads-metric-days", "30", "days of metrics the first sync reads (1 to 730)", func(c *Config, v string) (err error) {
			c.Ads.MetricDays, err = intIn(v, 1, 730)
			return
		}},
		{"PLATFORM_ADS_REVISIT_DAYS", "ads-revisit-days", "3", "days before the last synced one each sync reads again, as the platform revises them (0 to 90)", func(c *Config, v string) (err error) {
			c.Ads.RevisitDays, err = intIn(v, 0, 90)
			return
		}},
	}
}

func intIn(v string, least, most int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < least || n > most {
		return 0, fmt.Errorf("want a whole number from %d to %d", least, most)
	}
	return n, nil
}
