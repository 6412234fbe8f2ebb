package adsapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
	"platform/modules/ads/adsapi"
	"platform/modules/ads/adsim"
)

const cid = "1234567890"

// connected is a client of a fresh simulator and an account authorized
// through the whole OAuth exchange (authorization with PKCE, code, token).
func connected(t *testing.T) (*adsim.Sim, *adsapi.Client, adsapi.Account) {
	t.Helper()
	sim := adsim.New("client-1", "secret-1", "dev-token")
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := adsapi.NewClient(adsapi.Config{APIURL: srv.URL, AuthURL: srv.URL + adsim.AuthPath, TokenURL: srv.URL + adsim.TokenPath,
		ClientID: "client-1", ClientSecret: "secret-1", DeveloperToken: "dev-token", Timeout: 5 * time.Second, MaxWait: 2 * time.Second}, srv.Client())
	require.NoError(t, err)
	const redirect = "https://platform.example/ads/oauth/callback"
	verifier := "verifier-0123456789-0123456789-0123456789-0123456789"
	loc := follow(t, c.AuthCodeURL("state-1", verifier, redirect))
	require.Equal(t, "state-1", loc.Query().Get("state"))
	_, err = c.Exchange(context.Background(), loc.Query().Get("code"), "a-wrong-verifier-0123456789-0123456789-0123456789", redirect)
	require.ErrorIs(t, err, adsapi.ErrRevoked, "a code is bound to its PKCE verifier (and single use)")
	loc = follow(t, c.AuthCodeURL("state-2", verifier, redirect))
	rt, err := c.Exchange(context.Background(), loc.Query().Get("code"), verifier, redirect)
	require.NoError(t, err)
	return sim, c, adsapi.Account{CustomerID: cid, RefreshToken: rt}
}

func follow(t *testing.T, u string) *url.URL {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	return loc
}

func seed(sim *adsim.Sim, n int) {
	for i := range n {
		sim.Put(cid, adsapi.Entity{Kind: adsapi.KindCampaign, Name: "c" + string(rune('a'+i)), Status: "ENABLED", ChannelType: "SEARCH", BudgetMicros: 1e6})
	}
}

func TestPagingAndChangeTimes(t *testing.T) {
	t.Parallel()
	sim, c, a := connected(t)
	sim.PageSize = 2
	seed(sim, 5)
	var all []adsapi.Entity
	token, pages := "", 0
	for {
		p, err := c.Entities(context.Background(), a, adsapi.KindCampaign, time.Time{}, token)
		require.NoError(t, err)
		all, token, pages = append(all, p.Entities...), p.Next, pages+1
		if token == "" {
			break
		}
	}
	assert.Len(t, all, 5)
	assert.Equal(t, 3, pages)
	last := all[4].LastModified
	changed := sim.Put(cid, adsapi.Entity{Kind: adsapi.KindCampaign, ID: all[1].ID, Name: "renamed", Status: "PAUSED"})
	p, err := c.Entities(context.Background(), a, adsapi.KindCampaign, last.Add(time.Microsecond), "")
	require.NoError(t, err)
	require.Len(t, p.Entities, 1, "only what changed since the cursor")
	assert.Equal(t, "renamed", p.Entities[0].Name)
	assert.Equal(t, changed.LastModified, p.Entities[0].LastModified)
}

func TestTokenRefreshAfterExpiry(t *testing.T) {
	t.Parallel()
	sim, c, a := connected(t)
	seed(sim, 1)
	_, err := c.Entities(context.Background(), a, adsapi.KindCampaign, time.Time{}, "")
	require.NoError(t, err)
	before := sim.Stats().Refreshes
	sim.ExpireAccessTokens()
	_, err = c.Entities(context.Background(), a, adsapi.KindCampaign, time.Time{}, "")
	require.NoError(t, err)
	st := sim.Stats()
	assert.Equal(t, before+1, st.Refreshes, "the refused access token was refreshed once")
	assert.Equal(t, 1, st.Unauthorized)
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	sim, c, a := connected(t)
	seed(sim, 1)
	sim.Throttle(1, 1)
	start := time.Now()
	p, err := c.Entities(context.Background(), a, adsapi.KindCampaign, time.Time{}, "")
	require.NoError(t, err)
	assert.Len(t, p.Entities, 1)
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "the client waited the Retry-After")
	assert.Equal(t, 1, sim.Stats().Throttled)

	sim.Throttle(1, 30) // longer than MaxWait: handed to the caller's retry policy
	_, err = c.Entities(context.Background(), a, adsapi.KindCampaign, time.Time{}, "")
	var retry *outbound.RetryableError
	require.True(t, errors.As(err, &retry), "%v", err)
	assert.Equal(t, 30*time.Second, retry.RetryAfter)
}

func TestRevokedRefreshToken(t *testing.T) {
	t.Parallel()
	sim, c, a := connected(t)
	sim.RevokeAll()
	sim.ExpireAccessTokens()
	_, err := c.Metrics(context.Background(), a, adsapi.LevelCampaign, "2026-11-01", "2026-11-02", "")
	require.ErrorIs(t, err, adsapi.ErrRevoked)
}

func TestMutateAndMetrics(t *testing.T) {
	t.Parallel()
	sim, c, a := connected(t)
	got, err := c.Mutate(context.Background(), a, adsapi.Change{Entity: adsapi.Entity{Kind: adsapi.KindCampaign, Name: "new", Status: "PAUSED", BudgetMicros: 5e6}})
	require.NoError(t, err)
	require.NotEmpty(t, got.ResourceName)
	ag, err := c.Mutate(context.Background(), a, adsapi.Change{Entity: adsapi.Entity{Kind: adsapi.KindAdGroup, CampaignID: got.ID, Name: "g", Status: "ENABLED", CpcBidMicros: 1}})
	require.NoError(t, err)
	assert.Equal(t, got.ID, ag.CampaignID)
	got.Name = "newer"
	upd, err := c.Mutate(context.Background(), a, adsapi.Change{Entity: got, Fields: []string{"name"}})
	require.NoError(t, err)
	assert.Equal(t, "newer", upd.Name)
	assert.True(t, upd.LastModified.After(got.LastModified))
	sim.PutMetrics(cid, adsapi.MetricRow{Level: adsapi.LevelCampaign, EntityID: got.ID, CampaignID: got.ID, Date: "2026-11-02", Impressions: 10, Clicks: 2, Conversions: 0.5, CostMicros: 123})
	p, err := c.Metrics(context.Background(), a, adsapi.LevelCampaign, "2026-11-01", "2026-11-02", "")
	require.NoError(t, err)
	require.Len(t, p.Rows, 1)
	assert.Equal(t, adsapi.MetricRow{Level: adsapi.LevelCampaign, EntityID: got.ID, CampaignID: got.ID, Date: "2026-11-02", Impressions: 10, Clicks: 2, Conversions: 0.5, CostMicros: 123}, p.Rows[0])
}
