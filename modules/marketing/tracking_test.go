package marketing_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/modules/marketing/maillog"
)

// TestOpenAndClick: a person's opens and clicks set openedAt and
// clickedAt once, move the status forward, count every hit and announce
// maillogs.opened and maillogs.clicked once each.
func TestOpenAndClick(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind)
			c := f.consumer("ada@example.com")
			id := f.mailLog(c, time.Hour)
			pixel := f.P.Tracking.Pixel(f.P.Customer.ID, id)
			require.True(t, strings.HasPrefix(pixel, f.P.URL+"/t/o/"), pixel)

			evs := f.names(func() {
				for range 2 {
					res, body := f.hit("GET", pixel, browser, "")
					require.Equal(t, 200, res.StatusCode)
					assert.Equal(t, "image/gif", res.Header.Get("Content-Type"))
					assert.Contains(t, res.Header.Get("Cache-Control"), "no-store")
					assert.True(t, strings.HasPrefix(body, "GIF89a"))
				}
			})
			assert.Equal(t, []string{"maillogs.opened"}, evs, "one event for two opens")
			log := f.Stored("maillogs", id)
			assert.Equal(t, "opened", log["status"])
			opened := log["openedAt"]
			assert.NotNil(t, opened)
			assert.EqualValues(t, 2, log["opens"])

			target := "https://shop.example.com/sale?item=1&x=%C3%A9"
			click := f.P.Tracking.Click(f.P.Customer.ID, id, target)
			evs = f.names(func() {
				for range 2 {
					res, _ := f.hit("GET", click, browser, "")
					require.Equal(t, http.StatusFound, res.StatusCode)
					assert.Equal(t, target, res.Header.Get("Location"))
				}
			})
			assert.Equal(t, []string{"maillogs.clicked"}, evs)
			log = f.Stored("maillogs", id)
			assert.Equal(t, "clicked", log["status"])
			assert.NotNil(t, log["clickedAt"])
			assert.EqualValues(t, 2, log["clicks"])

			evs = f.names(func() { f.hit("GET", pixel, browser, "") })
			assert.Empty(t, evs)
			log = f.Stored("maillogs", id)
			assert.Equal(t, "clicked", log["status"], "an open never moves a clicked log back")
			assert.Equal(t, opened, log["openedAt"], "openedAt is the first open")
			assert.EqualValues(t, 3, log["opens"])

			r := f.P.Do("GET", "/crm/consumers/"+c+"/maillogs", f.Admin, nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			require.Len(t, r.List(), 1)
			assert.Equal(t, "clicked", r.List()[0]["status"])
		})
	}
}

// TestClickWithoutOpen: a click on a mail whose images were blocked sets
// clickedAt and the status; a later open sets openedAt only.
func TestClickWithoutOpen(t *testing.T) {
	f := newFixture(t, "sqlite")
	id := f.mailLog("", time.Hour)
	evs := f.names(func() { f.hit("GET", f.P.Tracking.Click(f.P.Customer.ID, id, "https://example.com/"), browser, "") })
	assert.Equal(t, []string{"maillogs.clicked"}, evs)
	evs = f.names(func() { f.hit("GET", f.P.Tracking.Pixel(f.P.Customer.ID, id), browser, "") })
	assert.Equal(t, []string{"maillogs.opened"}, evs)
	log := f.Stored("maillogs", id)
	assert.Equal(t, "clicked", log["status"])
	assert.NotNil(t, log["openedAt"])
}

// TestForgedLinks: a link with a forged or altered signature, target,
// customer or log answers 404 and changes nothing.
func TestForgedLinks(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind)
			c := f.consumer("ada@example.com")
			id, other := f.mailLog(c, time.Hour), f.mailLog(c, time.Hour)
			cust := f.P.Customer.ID
			pixel := f.P.Tracking.Pixel(cust, id)
			click := f.P.Tracking.Click(cust, id, "https://shop.example.com/")
			unsub := f.P.Tracking.Unsubscribe(cust, c, id)
			forged := []string{
				strings.Replace(pixel, "/"+id+"/", "/"+other+"/", 1), // another log, same signature
				pixel[:len(pixel)-6] + "AA.gif",                      // altered signature
				strings.TrimSuffix(pixel, ".gif"),                    // no .gif
				strings.Replace(click, url.QueryEscape("https://shop.example.com/"), url.QueryEscape("https://evil.example.com/"), 1), // open redirect attempt
				click[:strings.Index(click, "?")],                // no target
				strings.Replace(click, "/c/", "/o/", 1) + ".gif", // a click's signature as a pixel's
				f.P.URL + "/t/o/" + cust + "/" + id + "/" + strings.Repeat("A", 22) + ".gif",
				strings.Replace(unsub, "/"+c+"/", "/"+other+"/", 1),
			}
			before := f.Snapshot()
			evs := f.names(func() {
				for _, u := range forged {
					for _, m := range []string{"GET", "POST"} {
						res, _ := f.hit(m, u, browser, "List-Unsubscribe=One-Click")
						assert.Contains(t, []int{404, 405}, res.StatusCode, "%s %s", m, u)
					}
				}
			})
			assert.Empty(t, evs)
			assert.Equal(t, before, f.Snapshot(), "no record changed")
		})
	}
}

// TestMachineHits: scanners at delivery, HEAD requests, bots and image
// proxies are counted apart and move nothing.
func TestMachineHits(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind)
			fresh, old := f.mailLog("", 0), f.mailLog("", time.Hour)
			cust := f.P.Customer.ID
			evs := f.names(func() {
				f.hit("GET", f.P.Tracking.Pixel(cust, fresh), browser, "") // a scanner at delivery
				res, _ := f.hit("GET", f.P.Tracking.Click(cust, fresh, "https://example.com/"), browser, "")
				assert.Equal(t, http.StatusFound, res.StatusCode, "machines are redirected too")
				f.hit("HEAD", f.P.Tracking.Click(cust, old, "https://example.com/"), browser, "")
				f.hit("GET", f.P.Tracking.Pixel(cust, old), "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)", "")
				f.hit("GET", f.P.Tracking.Pixel(cust, old), "", "")
				f.hit("GET", f.P.Tracking.Click(cust, old, "https://example.com/"), "Mozilla/5.0 (compatible; bingbot/2.0)", "")
			})
			assert.Empty(t, evs, "machines announce nothing")
			for id, want := range map[string][2]int{fresh: {1, 1}, old: {2, 2}} {
				log := f.Stored("maillogs", id)
				assert.Equal(t, "sent", log["status"])
				assert.Nil(t, log["openedAt"])
				assert.Nil(t, log["clickedAt"])
				assert.EqualValues(t, want[0], log["machineOpens"])
				assert.EqualValues(t, want[1], log["machineClicks"])
			}
		})
	}
}

// TestUnsubscribe: GET shows a confirmation page and unsubscribes no
// one; the one-click POST records unsubscribedAt once.
func TestUnsubscribe(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind)
			c := f.consumer("ada@example.com")
			link := f.P.Tracking.Unsubscribe(f.P.Customer.ID, c, f.mailLog(c, time.Hour))
			evs := f.names(func() {
				res, body := f.hit("GET", link, browser, "")
				require.Equal(t, 200, res.StatusCode)
				assert.Contains(t, res.Header.Get("Content-Type"), "text/html")
				assert.Contains(t, body, `<form method="post">`)
				assert.Contains(t, body, `name="List-Unsubscribe" value="One-Click"`)
			})
			assert.Empty(t, evs)
			assert.Nil(t, f.Stored("consumers", c)["unsubscribedAt"], "a GET (a link scanner) unsubscribes no one")

			res, _ := f.hit("POST", link, browser, "")
			assert.Equal(t, 400, res.StatusCode, "a POST without the one-click body")
			evs = f.names(func() {
				for range 2 {
					res, body := f.hit("POST", link, "", "List-Unsubscribe=One-Click")
					require.Equal(t, 200, res.StatusCode)
					assert.Contains(t, body, "unsubscribed")
				}
			})
			assert.Equal(t, []string{"consumers.unsubscribed"}, evs)
			r := f.P.Do("GET", "/crm/consumers/"+c, f.Admin, nil)
			require.Equal(t, 200, r.Status)
			assert.NotEmpty(t, r.Payload()["unsubscribedAt"])
			r = f.P.Do("PATCH", "/crm/consumers/"+c, f.Admin, map[string]any{"unsubscribedAt": nil})
			assert.Equal(t, 422, r.Status, "clients cannot set or clear it")
		})
	}
}

// TestConcurrentHits: many people's hits at once still announce the
// first open and the first click once, and count every hit.
func TestConcurrentHits(t *testing.T) {
	for _, kind := range stores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind)
			id := f.mailLog("", time.Hour)
			links := []string{f.P.Tracking.Pixel(f.P.Customer.ID, id), f.P.Tracking.Click(f.P.Customer.ID, id, "https://example.com/")}
			const n = 20
			evs := f.names(func() {
				var wg sync.WaitGroup
				for i := range 2 * n {
					wg.Go(func() {
						req, _ := http.NewRequest("GET", links[i%2], nil)
						req.Header.Set("User-Agent", browser)
						if res, err := noRedirect.Do(req); err == nil {
							res.Body.Close()
						}
					})
				}
				wg.Wait()
			})
			assert.Equal(t, []string{"maillogs.clicked", "maillogs.opened"}, evs)
			log := f.Stored("maillogs", id)
			assert.EqualValues(t, n, log["opens"])
			assert.EqualValues(t, n, log["clicks"])
			assert.Equal(t, "clicked", log["status"])
		})
	}
}

// TestSettle: a queued log settles once, as sent with sentAt or as
// failed, and a hit within seconds of sentAt is a scanner's.
func TestSettle(t *testing.T) {
	f := newFixture(t, "sqlite")
	logs := maillog.Logs{Service: f.P.Service}
	queued := func() string {
		doc, err := logs.Create(f.P.Ctx(), maillog.Write{To: "ada@example.com", Source: "newsletter", Status: maillog.Queued})
		require.NoError(t, err)
		return doc["_id"].(string)
	}
	sent, failed := queued(), queued()
	for _, c := range []struct {
		id, failure string
		moved       bool
	}{{sent, "", true}, {sent, "", false}, {failed, "550 no such user", true}, {failed, "", false}} {
		moved, err := logs.Settle(f.P.Ctx(), c.id, c.failure)
		require.NoError(t, err)
		assert.Equal(t, c.moved, moved)
	}
	assert.Equal(t, "sent", f.Stored("maillogs", sent)["status"])
	assert.NotNil(t, f.Stored("maillogs", sent)["sentAt"])
	assert.Equal(t, "failed", f.Stored("maillogs", failed)["status"])
	assert.Equal(t, "550 no such user", f.Stored("maillogs", failed)["error"])
	f.hit("GET", f.P.Tracking.Pixel(f.P.Customer.ID, sent), browser, "")
	assert.EqualValues(t, 1, f.Stored("maillogs", sent)["machineOpens"], "a scanner at delivery")
}
