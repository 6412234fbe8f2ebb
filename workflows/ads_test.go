package workflows_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	aads "platform/activities/ads"
	"platform/cmd/platform/app"
	"platform/kernel/outbound"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/ads/adsapi"
	"platform/modules/ads/adsim"
	"platform/modules/ads/adsync"
	"platform/modules/config/credentials"
	"platform/test/testenv"
	"platform/worker"
	"platform/workflows/contract"
)

// TestAdsSyncResumesAtItsPage: a page that fails mid-sync (the platform
// down for a moment, or the worker killed while on it) is asked again,
// and only it: no page before it is read twice, and the run completes
// with every row. Pages of two rows make 17 pages over the 7 stages.
func TestAdsSyncResumesAtItsPage(t *testing.T) {
	t.Parallel()
	sim := adsim.New("c", "s", "d")
	sim.PageSize = 2
	sh := adsim.Shape{Campaigns: 3, AdGroupsPer: 1, KeywordsPer: 1, Days: 2}
	sim.Seed("1234567890", sh)
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	svc, ctx, conn := adsConnected(t, srv.URL)

	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(testenv.Logger(t)))
	env := s.NewTestWorkflowEnvironment()
	env.SetContextPropagators([]workflow.ContextPropagator{tenant.Propagator{}})
	cust, _ := tenant.Customer(ctx)
	p, err := converter.GetDefaultDataConverter().ToPayload(cust)
	require.NoError(t, err)
	env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{tenant.HeaderKey: p}})
	worker.Register(env, worker.Activities{Ads: &aads.Activities{Ads: svc}})

	sim.FailAfter(8) // the ninth page, in the campaign days
	env.ExecuteWorkflow(contract.WorkflowAdsSync, contract.AdsSyncInput{ConnectionID: conn})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	st := sim.Stats()
	assert.Equal(t, 1, st.Failed)
	assert.Equal(t, 17, st.Searches, "every page read once: the run went on at the page that failed")
	doc, err := svc.Records.Get(ctx, svc.Records.Registry.Get("ads", "adconnections"), conn)
	require.NoError(t, err)
	last := doc["lastSync"].(map[string]any)
	assert.Equal(t, "ok", last["status"])
	assert.EqualValues(t, sh.Rows(), last["metricRows"])
}

// adsConnected is the ads service on a platform without Temporal, with
// one connection authorized at the simulator at base.
func adsConnected(t *testing.T, base string) (*adsync.Service, context.Context, string) {
	t.Helper()
	cfg, err := settings.Load("test", nil)
	require.NoError(t, err)
	cfg.DataDir, cfg.MasterKey = t.TempDir(), credentials.EncodeMasterKey(credentials.NewMasterKey())
	a, err := app.New(context.Background(), cfg, testenv.NewStore(t, ""), nil, testenv.Logger(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	g, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	c, err := adsapi.NewClient(adsapi.Config{APIURL: base, AuthURL: base + adsim.AuthPath, TokenURL: base + adsim.TokenPath,
		ClientID: "c", ClientSecret: "s", DeveloperToken: "d", Timeout: 5 * time.Second}, g.Client(5*time.Second))
	require.NoError(t, err)
	svc := &adsync.Service{Records: a.Service, Vault: a.Vault, Provider: c, RedirectURL: "https://platform.example/ads/oauth/callback",
		StateTTL: time.Minute, MetricDays: 2}
	ctx := tenant.WithCustomer(context.Background(), store.NewID())
	rec, err := a.Service.Create(ctx, a.Registry.Get("ads", "adconnections"), map[string]any{"name": "resume", "customerId": "1234567890"})
	require.NoError(t, err)
	auth, err := svc.Authorize(ctx, rec["_id"].(string))
	require.NoError(t, err)
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(auth.URL)
	require.NoError(t, err)
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	_, _, err = svc.Callback(context.Background(), loc.Query().Get("state"), loc.Query().Get("code"), "")
	require.NoError(t, err)
	return svc, ctx, rec["_id"].(string)
}
