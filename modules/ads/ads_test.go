package ads_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/ads/adsapi"
	"platform/modules/ads/adsim"
	"platform/test/testenv"
)

const acct = "1234567890"

var adsRights = []string{"ads.*", "config.credentials.view"}

type fixture struct {
	t   *testing.T
	p   *testenv.Platform
	sim *adsim.Sim
	tok string
}

// newFixture is a platform with a worker whose ad platform is the
// simulator, seeded with 3 campaigns (a page holds 2), an ad group with
// two keywords, and three days of metrics.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	sim := adsim.New("client-1", "secret-1", "dev-token")
	sim.PageSize = 2
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.Ads.APIURL, c.Ads.AuthURL, c.Ads.TokenURL = srv.URL, srv.URL+adsim.AuthPath, srv.URL+adsim.TokenPath
		c.Ads.ClientID, c.Ads.ClientSecret, c.Ads.DeveloperToken = "client-1", "secret-1", "dev-token"
		c.Ads.MetricDays = 3
		c.OutboundAllow = append(c.OutboundAllow, "127.0.0.1")
	}})
	p.CheckOpenAPI("ads")
	f := &fixture{t: t, p: p, sim: sim, tok: p.Token(adsRights...)}
	f.seed()
	return f
}

func (f *fixture) seed() {
	var camps []adsapi.Entity
	for _, n := range []string{"alpha", "beta", "gamma"} {
		camps = append(camps, f.sim.Put(acct, adsapi.Entity{Kind: adsapi.KindCampaign, Name: n, Status: "ENABLED", ChannelType: "SEARCH", BudgetMicros: 5e6}))
	}
	ag := f.sim.Put(acct, adsapi.Entity{Kind: adsapi.KindAdGroup, CampaignID: camps[0].ID, Name: "shoes", Status: "ENABLED", CpcBidMicros: 4e5})
	for _, k := range []string{"red shoes", "blue shoes"} {
		kw := f.sim.Put(acct, adsapi.Entity{Kind: adsapi.KindKeyword, AdGroupID: ag.ID, Name: k, MatchType: "PHRASE", Status: "ENABLED"})
		f.days(adsapi.MetricRow{Level: adsapi.LevelKeyword, EntityID: kw.ID, CampaignID: camps[0].ID, AdGroupID: ag.ID}, 10)
	}
	f.days(adsapi.MetricRow{Level: adsapi.LevelAdGroup, EntityID: ag.ID, CampaignID: camps[0].ID, AdGroupID: ag.ID}, 20)
	for _, c := range camps {
		f.days(adsapi.MetricRow{Level: adsapi.LevelCampaign, EntityID: c.ID, CampaignID: c.ID}, 30)
	}
}

// days puts three days of m ending today, with impressions each.
func (f *fixture) days(m adsapi.MetricRow, impressions int64) {
	for d := range 3 {
		m.Date = time.Now().UTC().AddDate(0, 0, -d).Format(time.DateOnly)
		m.Impressions, m.Clicks, m.Conversions, m.CostMicros = impressions, impressions/10, 0.5, impressions*1000
		f.sim.PutMetrics(acct, m)
	}
}

// connect creates a connection and runs the whole OAuth exchange through
// the routes: the authorize action, the platform's consent redirect and
// the callback; then it waits for the first sync.
func (f *fixture) connect(name string) string {
	t := f.t
	r := f.p.Do("POST", "/ads/adconnections", f.tok, map[string]any{"name": name, "customerId": "123-456-7890"})
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Payload()["_id"].(string)
	assert.Equal(t, "pending", r.Payload()["state"])
	r = f.p.Do("POST", "/ads/adconnections/"+id+"/actions/authorize", f.tok, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	loc := consent(t, r.Payload()["authorizationUrl"].(string))
	require.True(t, strings.HasSuffix(loc.Path, "/ads/oauth/callback"), loc.String())
	r = f.p.Do("GET", "/ads/oauth/callback?"+loc.RawQuery, "", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	assert.Equal(t, "connected", r.Payload()["state"])
	assert.NotContains(t, string(r.Body), "1//", "the refresh token is never answered")
	r = f.p.Do("GET", "/ads/oauth/callback?"+loc.RawQuery, "", nil)
	assert.Equal(t, 422, r.Status, "the state is single use")
	f.awaitSync(id, "")
	return id
}

// awaitSync waits until a sync other than prev finished and returns its id.
func (f *fixture) awaitSync(conn, prev string) store.Doc {
	var last store.Doc
	require.Eventually(f.t, func() bool {
		r := f.p.Do("GET", "/ads/adconnections/"+conn, f.tok, nil)
		last, _ = r.Payload()["lastSync"].(map[string]any)
		return last != nil && last["syncId"] != prev && (last["status"] == "ok" || last["status"] == "failed")
	}, 30*time.Second, 50*time.Millisecond)
	return last
}

func (f *fixture) syncNow(conn string) store.Doc {
	prev := f.p.Do("GET", "/ads/adconnections/"+conn, f.tok, nil).Payload()["lastSync"].(map[string]any)["syncId"].(string)
	r := f.p.Do("POST", "/ads/adconnections/"+conn+"/actions/sync", f.tok, nil)
	require.Equal(f.t, 202, r.Status, string(r.Body))
	return f.awaitSync(conn, prev)
}

func consent(t *testing.T, u string) *url.URL {
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

func (f *fixture) list(path string) []map[string]any {
	r := f.p.Do("GET", path, f.tok, nil)
	require.Equal(f.t, 200, r.Status, string(r.Body))
	return r.List()
}

func TestAds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	conn := f.connect("main")

	t.Run("first sync pages through everything", func(t *testing.T) {
		camps := f.list("/ads/campaigns?limit=100")
		require.Len(t, camps, 3)
		for _, c := range camps {
			assert.Equal(t, "synced", c["syncState"])
		}
		assert.Len(t, f.list("/ads/adgroups"), 1)
		kws := f.list("/ads/keywords")
		require.Len(t, kws, 2)
		perf := kws[0]["performance"].(map[string]any)
		assert.EqualValues(t, 30, perf["impressions"], "three days of 10")
		assert.Len(t, f.list("/ads/metrics?limit=500"), 3*3+3+6)
	})

	t.Run("metrics are idempotent", func(t *testing.T) {
		day := time.Now().UTC().Format(time.DateOnly)
		camp := f.list("/ads/campaigns?name=alpha")[0]
		f.sim.PutMetrics(acct, adsapi.MetricRow{Level: adsapi.LevelCampaign, EntityID: camp["platformId"].(string), CampaignID: camp["platformId"].(string),
			Date: day, Impressions: 999, Clicks: 9, CostMicros: 1})
		last := f.syncNow(conn)
		assert.Equal(t, "ok", last["status"])
		rows := f.list("/ads/metrics?limit=500")
		assert.Len(t, rows, 18, "a day synced again is rewritten, not added")
		got := f.list("/ads/metrics?level=campaign&date=" + day + "&platformId=" + camp["platformId"].(string))
		require.Len(t, got, 1)
		assert.EqualValues(t, 999, got[0]["impressions"])
	})

	t.Run("incremental: only changes since the cursor", func(t *testing.T) {
		camp := f.list("/ads/campaigns?name=beta")[0]
		e, _ := f.sim.Entity(acct, camp["resourceName"].(string))
		e.Name = "beta renamed"
		f.sim.Put(acct, e)
		last := f.syncNow(conn)
		assert.EqualValues(t, 1, last["entities"], "one entity changed since the last sync")
		assert.Len(t, f.list("/ads/campaigns?name=beta%20renamed"), 1)
	})

	t.Run("a change through the API is pushed", func(t *testing.T) {
		r := f.p.Do("POST", "/ads/campaigns", f.tok, map[string]any{"connection": conn, "name": "launch", "budgetMicros": 7000000, "startDate": "2026-12-01"})
		require.Equal(t, 201, r.Status, string(r.Body))
		assert.Equal(t, "pending", r.Payload()["syncState"])
		doc := f.p.EventuallyStored("campaigns", r.Payload()["_id"].(string), func(d store.Doc) bool { return d["syncState"] == "synced" }, "the push lands")
		e, ok := f.sim.Entity(acct, doc["resourceName"].(string))
		require.True(t, ok)
		assert.Equal(t, "launch", e.Name)
		assert.EqualValues(t, 7000000, e.BudgetMicros)
	})

	t.Run("a conflicting change is reported, not overwritten", func(t *testing.T) {
		camp := f.list("/ads/campaigns?name=gamma")[0]
		id := camp["_id"].(string)
		e, _ := f.sim.Entity(acct, camp["resourceName"].(string))
		e.BudgetMicros = 9e6 // changed on the platform, not synced yet
		f.sim.Put(acct, e)
		r := f.p.Do("PATCH", "/ads/campaigns/"+id, f.tok, map[string]any{"budgetMicros": 1000000})
		require.Equal(t, 200, r.Status, string(r.Body))
		doc := f.p.EventuallyStored("campaigns", id, func(d store.Doc) bool { return d["syncState"] == "conflict" }, "the conflict is reported")
		c := doc["conflict"].(map[string]any)
		assert.EqualValues(t, 9e6, c["platform"].(map[string]any)["budgetMicros"])
		still, _ := f.sim.Entity(acct, camp["resourceName"].(string))
		assert.EqualValues(t, 9e6, still.BudgetMicros, "the platform's change was not overwritten")
		r = f.p.Do("PATCH", "/ads/campaigns/"+id, f.tok, map[string]any{"budgetMicros": 2000000})
		assert.Equal(t, 409, r.Status, "no change while in conflict")
		r = f.p.Do("POST", "/ads/campaigns/"+id+"/actions/resolve", f.tok, map[string]any{"keep": "ours"})
		require.Equal(t, 200, r.Status, string(r.Body))
		f.p.EventuallyStored("campaigns", id, func(d store.Doc) bool { return d["syncState"] == "synced" }, "ours is pushed")
		now, _ := f.sim.Entity(acct, camp["resourceName"].(string))
		assert.EqualValues(t, 1e6, now.BudgetMicros)
	})

	t.Run("a 429 with Retry-After is waited out", func(t *testing.T) {
		before := f.sim.Stats().Throttled
		f.sim.Throttle(1, 1)
		last := f.syncNow(conn)
		assert.Equal(t, "ok", last["status"])
		assert.Equal(t, before+1, f.sim.Stats().Throttled)
	})

	t.Run("an expired access token is refreshed", func(t *testing.T) {
		before := f.sim.Stats().Refreshes
		f.sim.ExpireAccessTokens()
		assert.Equal(t, "ok", f.syncNow(conn)["status"])
		assert.Greater(t, f.sim.Stats().Refreshes, before)
	})

	t.Run("rights and tenant isolation", func(t *testing.T) {
		camp := f.list("/ads/campaigns?name=alpha")[0]
		metric := f.list("/ads/metrics?limit=1")[0]
		assert.Equal(t, 405, f.p.Do("POST", "/ads/metrics", f.tok, map[string]any{"impressions": 1}).Status)
		assert.Equal(t, 405, f.p.Do("PATCH", "/ads/metrics/"+metric["_id"].(string), f.tok, map[string]any{"impressions": 1}).Status)
		view := f.p.Token("ads.campaigns.view")
		assert.Equal(t, 403, f.p.Do("PATCH", "/ads/campaigns/"+camp["_id"].(string), view, map[string]any{"name": "x"}).Status)
		assert.Equal(t, 403, f.p.Do("GET", "/ads/metrics", view, nil).Status)
		assert.Equal(t, 403, f.p.Do("POST", "/ads/adconnections/"+conn+"/actions/authorize", view, nil).Status)
		cust, user := f.p.OtherCustomer("ads-other")
		other := f.p.TokenFor(cust.ID, user.ID, adsRights...)
		assert.Equal(t, 404, f.p.Do("GET", "/ads/campaigns/"+camp["_id"].(string), other, nil).Status)
		assert.Equal(t, 404, f.p.Do("GET", "/ads/metrics/"+metric["_id"].(string), other, nil).Status)
		assert.Empty(t, f.p.Do("GET", "/ads/metrics", other, nil).List())
		r := f.p.Do("POST", "/ads/campaigns", other, map[string]any{"connection": conn, "name": "x", "budgetMicros": 1})
		assert.Equal(t, 422, r.Status, "another customer's connection is unknown")
	})

	t.Run("a revoked refresh token stops the connection", func(t *testing.T) {
		events := f.p.CountEvents("adconnections.failed")
		f.sim.RevokeAll()
		f.sim.ExpireAccessTokens()
		last := f.syncNow(conn)
		assert.Equal(t, "failed", last["status"])
		r := f.p.Do("GET", "/ads/adconnections/"+conn, f.tok, nil)
		assert.Equal(t, "error", r.Payload()["state"])
		assert.Contains(t, r.Payload()["stateReason"], "authorize")
		// The event is recorded right after the write the test saw.
		assert.Eventually(t, func() bool { return f.p.CountEvents("adconnections.failed") == events+1 }, 10*time.Second, 20*time.Millisecond)
		assert.Equal(t, 409, f.p.Do("POST", "/ads/adconnections/"+conn+"/actions/sync", f.tok, nil).Status, "no sync until authorized again")
	})
}
