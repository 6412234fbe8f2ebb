package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/test/testenv"
)

// trackingClient fetches tracking links as a mail client does, keeping
// connections alive for the 50 callers and never following redirects.
var trackingClient = &http.Client{
	Transport:     &http.Transport{MaxIdleConns: 200, MaxIdleConnsPerHost: 200},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// BenchmarkTracking measures the open pixel and the click redirect of
// {tracking_url} (signature check, mail log read, the counting write, the
// event of a first open or click) against a get of a mail log by id
// through the API, in one run on each store.
func BenchmarkTracking(b *testing.B) {
	for _, kind := range []string{"sqlite", "mongodb"} {
		b.Run(kind, func(b *testing.B) { benchTracking(b, kind) })
	}
}

func benchTracking(b *testing.B, kind string) {
	p := testenv.NewPlatform(b, testenv.Options{Store: kind})
	ids := seedMailLogs(b, p, 1000)
	tok := p.Token("marketing.*")
	cust := p.Customer.ID
	results := map[string]float64{}
	run := func(name string, op func(i int) error) {
		b.Run(name, func(b *testing.B) { results[name] = measure(b, op) })
	}
	run("get", func(int) error {
		return expect(p.Do("GET", "/marketing/maillogs/"+ids[rand.IntN(len(ids))], tok, nil).Status, 200)
	})
	run("pixel", func(int) error { return fetch(p.Tracking.Pixel(cust, ids[rand.IntN(len(ids))]), 200) })
	run("redirect", func(int) error {
		return fetch(p.Tracking.Click(cust, ids[rand.IntN(len(ids))], "https://shop.example.com/sale"), http.StatusFound)
	})
	g := results["get"]
	for _, op := range []string{"pixel", "redirect"} {
		if g > 0 {
			fmt.Printf("%-7s %-8s %8.1f req/s  get by id %8.1f req/s  %s/get %.2f\n", kind, op, results[op], g, op, results[op]/g)
		}
	}
}

// seedMailLogs stores n mail logs sent an hour ago (people's hits, then).
func seedMailLogs(b *testing.B, p *testenv.Platform, n int) []string {
	r := p.Registry.Get("marketing", "maillogs")
	sent := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	ids := make([]string, n)
	for i := range ids {
		doc, err := p.Service.Insert(p.Ctx(), r, store.Doc{"to": fmt.Sprintf("r%d@example.com", i), "status": "sent", "source": "newsletter", "sentAt": sent})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = doc["_id"].(string)
	}
	return ids
}

// fetch GETs a tracking link as a person's mail client would.
func fetch(url string, want int) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko)")
	res, err := trackingClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return expect(res.StatusCode, want)
}
