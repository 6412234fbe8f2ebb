package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"platform/kernel/settings"
	"platform/modules/ads/adsapi"
	"platform/modules/ads/adsim"
	"platform/test/testenv"
)

// benchAdsShape is the seeded account: 115 entities, 805 metric rows
// over a week.
var benchAdsShape = adsim.Shape{Campaigns: 5, AdGroupsPer: 2, KeywordsPer: 10, Days: 7}

const benchAdsAccount = "1234567890"

// BenchmarkAdsSync measures, in one run on each store, metric rows synced
// per second by the sync workflow against the local ad platform (the
// first sync writes every row; the next reads them all again and finds
// them unchanged), against a raw
// loop of the same HTTP calls (the metric searches, page by page, with
// nothing stored).
func BenchmarkAdsSync(b *testing.B) {
	for _, kind := range []string{"sqlite", "mongodb"} {
		b.Run(kind, func(b *testing.B) { benchAdsSync(b, kind) })
	}
}

func benchAdsSync(b *testing.B, kind string) {
	sim := adsim.New("bench", "bench-secret", "bench-dev")
	sim.Seed(benchAdsAccount, benchAdsShape)
	srv := httptest.NewServer(sim)
	b.Cleanup(srv.Close)
	p := testenv.NewPlatform(b, testenv.Options{Store: kind, Worker: true, Configure: func(c *settings.Config) {
		c.Ads.APIURL, c.Ads.AuthURL, c.Ads.TokenURL = srv.URL, srv.URL+adsim.AuthPath, srv.URL+adsim.TokenPath
		c.Ads.ClientID, c.Ads.ClientSecret, c.Ads.DeveloperToken = "bench", "bench-secret", "bench-dev"
		c.Ads.MetricDays, c.Ads.RevisitDays = benchAdsShape.Days, benchAdsShape.Days // the re-sync rewrites every day
		c.OutboundAllow = append(c.OutboundAllow, "127.0.0.1")
	}})
	tok := p.Token("ads.*")
	conn, first := benchConnect(b, p, tok)
	rows := float64(benchAdsShape.Rows())
	again := benchResync(b, p, tok, conn)
	raw := benchRawMetrics(b, srv.URL)
	fmt.Printf("%-7s first sync %8.0f rows/s (sync/raw %.3f)  re-sync, unchanged %8.0f rows/s (sync/raw %.3f)  raw HTTP loop %8.0f rows/s  (%d rows, %d entities)\n",
		kind, rows/first.Seconds(), raw.Seconds()/first.Seconds(), rows/again.Seconds(), raw.Seconds()/again.Seconds(), rows/raw.Seconds(), int(rows),
		benchAdsShape.Campaigns*(1+benchAdsShape.AdGroupsPer*(1+benchAdsShape.KeywordsPer)))
	b.ReportMetric(rows/again.Seconds(), "rows/s")
}

// benchConnect connects the account through the routes and times the
// first sync the callback starts.
func benchConnect(b *testing.B, p *testenv.Platform, tok string) (string, time.Duration) {
	r := p.Do("POST", "/ads/adconnections", tok, map[string]any{"name": "bench", "customerId": benchAdsAccount})
	conn := r.Payload()["_id"].(string)
	r = p.Do("POST", "/ads/adconnections/"+conn+"/actions/authorize", tok, nil)
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(r.Payload()["authorizationUrl"].(string))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	start := time.Now()
	if r := p.Do("GET", "/ads/oauth/callback?"+loc.RawQuery, "", nil); r.Status != 200 {
		b.Fatalf("callback: %d %s", r.Status, r.Body)
	}
	benchAwaitSync(b, p, tok, conn, "")
	return conn, time.Since(start)
}

func benchResync(b *testing.B, p *testenv.Platform, tok, conn string) time.Duration {
	prev := p.Do("GET", "/ads/adconnections/"+conn, tok, nil).Payload()["lastSync"].(map[string]any)["syncId"].(string)
	start := time.Now()
	if r := p.Do("POST", "/ads/adconnections/"+conn+"/actions/sync", tok, nil); r.Status != 202 {
		b.Fatalf("sync: %d %s", r.Status, r.Body)
	}
	benchAwaitSync(b, p, tok, conn, prev)
	return time.Since(start)
}

func benchAwaitSync(b *testing.B, p *testenv.Platform, tok, conn, prev string) {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		last, _ := p.Do("GET", "/ads/adconnections/"+conn, tok, nil).Payload()["lastSync"].(map[string]any)
		if last != nil && last["syncId"] != prev && last["status"] != "running" {
			if last["status"] != "ok" || int(last["metricRows"].(float64)) != benchAdsShape.Rows() {
				b.Fatalf("sync: %v", last)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatal("the sync did not finish in 10 minutes")
}

// benchRawMetrics pages through the same metric searches with the same
// client, storing nothing.
func benchRawMetrics(b *testing.B, base string) time.Duration {
	c, err := adsapi.NewClient(adsapi.Config{APIURL: base, AuthURL: base + adsim.AuthPath, TokenURL: base + adsim.TokenPath,
		ClientID: "bench", ClientSecret: "bench-secret", DeveloperToken: "bench-dev", Timeout: time.Minute}, http.DefaultClient)
	if err != nil {
		b.Fatal(err)
	}
	a := adsapi.Account{CustomerID: benchAdsAccount, RefreshToken: benchRefreshToken(b, c)}
	to := time.Now().UTC().Format(time.DateOnly)
	from := time.Now().UTC().AddDate(0, 0, -benchAdsShape.Days+1).Format(time.DateOnly)
	start, n := time.Now(), 0
	for _, level := range []string{adsapi.LevelCampaign, adsapi.LevelAdGroup, adsapi.LevelKeyword} {
		for tok := ""; ; {
			page, err := c.Metrics(context.Background(), a, level, from, to, tok)
			if err != nil {
				b.Fatal(err)
			}
			n += len(page.Rows)
			if tok = page.Next; tok == "" {
				break
			}
		}
	}
	if n != benchAdsShape.Rows() {
		b.Fatalf("raw loop read %d rows, want %d", n, benchAdsShape.Rows())
	}
	return time.Since(start)
}

func benchRefreshToken(b *testing.B, c *adsapi.Client) string {
	const redirect = "http://127.0.0.1/cb"
	verifier := "bench-verifier-0123456789-0123456789-0123456789-01"
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(c.AuthCodeURL("s", verifier, redirect))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	rt, err := c.Exchange(context.Background(), loc.Query().Get("code"), verifier, redirect)
	if err != nil {
		b.Fatal(err)
	}
	return rt
}
