package workflows_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/ads/adsapi"
	"platform/modules/ads/adsim"
	"platform/test/testenv"
)

// TestRecordHistoriesAds connects an ad account on the real servers
// against the simulator (pages of one row, so the sync takes every
// stage's paging path, and a 429 on the way), runs its sync and the push
// of a new campaign, and writes their histories to testdata/ads_sync.json
// and testdata/ads_push.json.
func TestRecordHistoriesAds(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/ads_*.json")
	}
	sim := adsim.New("c", "s", "d")
	sim.PageSize = 1
	srv := httptest.NewServer(sim)
	defer srv.Close()
	const cid = "1234567890"
	camp := sim.Put(cid, adsapi.Entity{Kind: adsapi.KindCampaign, Name: "a", Status: "ENABLED", BudgetMicros: 1})
	sim.Put(cid, adsapi.Entity{Kind: adsapi.KindCampaign, Name: "b", Status: "ENABLED", BudgetMicros: 1})
	sim.PutMetrics(cid, adsapi.MetricRow{Level: adsapi.LevelCampaign, EntityID: camp.ID, CampaignID: camp.ID, Date: time.Now().UTC().Format(time.DateOnly), Impressions: 1})
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.Ads.APIURL, c.Ads.AuthURL, c.Ads.TokenURL = srv.URL, srv.URL+adsim.AuthPath, srv.URL+adsim.TokenPath
		c.Ads.ClientID, c.Ads.ClientSecret, c.Ads.DeveloperToken = "c", "s", "d"
		c.OutboundAllow = []string{"127.0.0.1"}
	}})
	tok := p.Token("ads.*")
	r := p.Do("POST", "/ads/adconnections", tok, map[string]any{"name": "replay", "customerId": cid})
	require.Equal(t, 201, r.Status)
	conn := r.Payload()["_id"].(string)
	r = p.Do("POST", "/ads/adconnections/"+conn+"/actions/authorize", tok, nil)
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(r.Payload()["authorizationUrl"].(string))
	require.NoError(t, err)
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	sim.Throttle(1, 1)
	require.Equal(t, 200, p.Do("GET", "/ads/oauth/callback?"+loc.RawQuery, "", nil).Status)
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	syncID := awaitAdsWorkflow(ctx, t, p, "AdsSync")
	r = p.Do("POST", "/ads/campaigns", tok, map[string]any{"connection": conn, "name": "new", "budgetMicros": 5})
	require.Equal(t, 201, r.Status, string(r.Body))
	p.EventuallyStored("campaigns", r.Payload()["_id"].(string), func(d store.Doc) bool { return d["syncState"] == "synced" }, "pushed")
	pushID := awaitAdsWorkflow(ctx, t, p, "AdsPush")
	writeHistory(ctx, t, p.Temporal, syncID, filepath.Join("testdata", "ads_sync.json"))
	writeHistory(ctx, t, p.Temporal, pushID, filepath.Join("testdata", "ads_push.json"))
}

// awaitAdsWorkflow waits for the first closed workflow of the type.
func awaitAdsWorkflow(ctx context.Context, t *testing.T, p *testenv.Platform, typ string) string {
	var id string
	require.Eventually(t, func() bool {
		res, err := p.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: "WorkflowType = '" + typ + "'"})
		if err != nil {
			return false
		}
		for _, e := range res.Executions {
			if e.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED {
				id = e.Execution.WorkflowId
				return true
			}
		}
		return false
	}, 30*time.Second, 100*time.Millisecond)
	return id
}
