package marketing_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/modules/marketing/coupon"
	"platform/test/apitest"
	"platform/test/testenv"
)

// couponFixture is the coupons' scenario fixture: a platform of its own
// for one top-level test, with a second customer.
type couponFixture struct{ *apitest.Env }

var couponAPI = apitest.Options{
	Modules: []string{"marketing"}, Rights: []string{"marketing.coupons.*", "crm.consumers.*"},
	Collections: []string{coupon.Collection, coupon.RedemptionsCollection},
}

type couponScenario = apitest.Scenario[*couponFixture]

func newCouponFixture(t *testing.T, o testenv.Options) *couponFixture {
	t.Helper()
	opts := couponAPI
	opts.Platform = o
	return &couponFixture{apitest.New(t, opts)}
}

func (f *couponFixture) For(t testing.TB) *couponFixture { return &couponFixture{f.Env.For(t)} }

var couponSeq int

// coupon creates a coupon with a fresh code and the given fields.
func (f *couponFixture) coupon(fields map[string]any) string {
	couponSeq++
	body := map[string]any{"code": fmt.Sprintf("C%d-%d", couponSeq, time.Now().UnixNano()), "type": "percent", "value": 10}
	for k, v := range fields {
		body[k] = v
	}
	return f.Create("/marketing/coupons", body)
}

func (f *couponFixture) consumer() string {
	couponSeq++
	return f.Create("/crm/consumers", map[string]any{"email": fmt.Sprintf("c%d-%d@example.com", couponSeq, time.Now().UnixNano())})
}

func (f *couponFixture) paused() string {
	id := f.coupon(nil)
	require.Equal(f.T, http.StatusOK, f.P.Do("POST", "/marketing/coupons/"+id+"/actions/pause", f.Admin, nil).Status)
	return id
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func TestCouponRules(t *testing.T) {
	f := newCouponFixture(t, testenv.Options{})
	given := func(f *couponFixture) apitest.IDs {
		couponSeq++
		code := fmt.Sprintf("Summer-%d", couponSeq)
		return apitest.IDs{"c": f.coupon(map[string]any{"code": code}), "who": f.consumer(), "lower": strings.ToLower(code), "upper": strings.ToUpper(code)}
	}
	invalid := func(name, field string, body map[string]any) couponScenario {
		b := map[string]any{"code": "NEW-1", "type": "percent", "value": 10}
		for k, v := range body {
			b[k] = v
		}
		return couponScenario{Name: name, Method: "POST", Path: "/marketing/coupons", Body: b, Status: 422, Field: field}
	}
	apitest.Run(t, f, []couponScenario{
		{Name: "a new coupon is active and its code is stored in capitals", Method: "POST", Path: "/marketing/coupons",
			Body: map[string]any{"code": "welcome_5", "type": "fixed", "value": 5, "usageLimit": 100}, Status: 201, Events: []string{"coupons.created"},
			Then: func(f *couponFixture, v apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "WELCOME_5", r.Payload()["code"])
				assert.Equal(f.T, "active", r.Payload()["_status"])
			}},
		{Name: "codes are unique per customer whatever their case", Given: given, Method: "POST", Path: "/marketing/coupons",
			Body: map[string]any{"code": "{lower}", "type": "freeshipping"}, Status: 409, Codes: []string{"conflict.duplicate"}, Field: "code"},
		{Name: "another customer may use the same code", Given: given, Method: "POST", Path: "/marketing/coupons",
			Token: func(f *couponFixture) string { return f.Other }, Body: map[string]any{"code": "{upper}", "type": "freeshipping"},
			Status: 201},
		invalid("a percent above 100 is refused", "value", map[string]any{"value": 150}),
		invalid("a percent of 0 is refused", "value", map[string]any{"value": 0}),
		invalid("a fixed amount of 0 is refused", "value", map[string]any{"type": "fixed", "value": 0}),
		invalid("a fixed coupon needs a value", "value", map[string]any{"type": "fixed", "value": nil}),
		invalid("free shipping takes no value", "value", map[string]any{"type": "freeshipping", "value": 5}),
		invalid("validFrom after validUntil is refused", "validUntil", map[string]any{"validFrom": "2030-02-01T00:00:00Z", "validUntil": "2030-01-01T00:00:00Z"}),
		invalid("a usage limit of 0 is refused", "usageLimit", map[string]any{"usageLimit": 0}),
		invalid("a per-user limit of 0 is refused", "perUserLimit", map[string]any{"perUserLimit": 0}),
		invalid("a code with spaces is refused", "code", map[string]any{"code": "two words"}),
		invalid("the status is not client-settable", "_status", map[string]any{"_status": "paused"}),
		invalid("an unknown type is refused", "type", map[string]any{"type": "bogo"}),
		{Name: "pause stops redemptions", Given: given, Method: "POST", Path: "/marketing/coupons/{c}/actions/pause", Status: 200,
			Events: []string{"coupons.paused"},
			Then: func(f *couponFixture, v apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "paused", f.Stored(coupon.Collection, v["c"])["_status"])
			}},
		{Name: "pausing a paused coupon changes nothing", Given: func(f *couponFixture) apitest.IDs { return apitest.IDs{"c": f.paused()} },
			Method: "POST", Path: "/marketing/coupons/{c}/actions/pause", Status: 200},
		{Name: "a paused coupon is not redeemed", Given: func(f *couponFixture) apitest.IDs { return apitest.IDs{"c": f.paused(), "who": f.consumer()} },
			Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem", Body: map[string]any{"consumerId": "{who}"}, Status: 409, Field: "_status"},
		{Name: "resume makes it active again", Given: func(f *couponFixture) apitest.IDs { return apitest.IDs{"c": f.paused()} },
			Method: "POST", Path: "/marketing/coupons/{c}/actions/resume", Status: 200, Events: []string{"coupons.resumed"},
			Then: func(f *couponFixture, v apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "active", r.Payload()["_status"])
			}},
		{Name: "a redemption is recorded and announced", Given: given, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem",
			Body: map[string]any{"consumerId": "{who}", "orderRef": "order-1"}, Status: 200, Events: []string{"coupons.redeemed"},
			Then: func(f *couponFixture, v apitest.IDs, r *testenv.Resp) {
				red := r.Payload()
				assert.Equal(f.T, v["c"], red["coupon"])
				assert.Equal(f.T, v["who"], red["consumer"])
				assert.Equal(f.T, v["upper"], red["code"])
				assert.Equal(f.T, red["_id"], f.Recorded[0].Data["_id"])
				list := f.P.Do("GET", "/marketing/couponredemptions?coupon="+v["c"], f.Admin, nil)
				assert.Equal(f.T, []string{red["_id"].(string)}, apitest.ListIDs(list))
			}},
		{Name: "a redemption before validFrom is refused", Given: func(f *couponFixture) apitest.IDs {
			return apitest.IDs{"c": f.coupon(map[string]any{"validFrom": rfc(time.Now().Add(time.Hour))}), "who": f.consumer()}
		}, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem", Body: map[string]any{"consumerId": "{who}"}, Status: 409, Field: "validFrom"},
		{Name: "a coupon limited to products needs them named", Given: func(f *couponFixture) apitest.IDs {
			return apitest.IDs{"c": f.coupon(map[string]any{"applicableProducts": []string{"p1", "p2"}}), "who": f.consumer()}
		}, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem", Body: map[string]any{"consumerId": "{who}"}, Status: 422, Field: "productIds"},
		{Name: "a coupon limited to products refuses others", Given: func(f *couponFixture) apitest.IDs {
			return apitest.IDs{"c": f.coupon(map[string]any{"applicableProducts": []string{"p1", "p2"}}), "who": f.consumer()}
		}, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem", Body: map[string]any{"consumerId": "{who}", "productIds": []string{"p9"}},
			Status: 409, Field: "applicableProducts"},
		{Name: "a coupon limited to products takes an order with one of them", Given: func(f *couponFixture) apitest.IDs {
			return apitest.IDs{"c": f.coupon(map[string]any{"applicableProducts": []string{"p1", "p2"}}), "who": f.consumer()}
		}, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem", Body: map[string]any{"consumerId": "{who}", "productIds": []string{"p9", "p2"}},
			Status: 200, Events: []string{"coupons.redeemed"}},
		{Name: "a redemption names at most 1000 products", Given: given, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem",
			Body: map[string]any{"consumerId": "{who}", "productIds": manyProducts(1001)}, Status: 422, Field: "productIds"},
		{Name: "an unknown consumer is refused", Given: given, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem",
			Body: map[string]any{"consumerId": "0123456789abcdef01234567"}, Status: 422, Field: "consumerId"},
		{Name: "another customer's consumer is unknown", Given: func(f *couponFixture) apitest.IDs {
			r := f.P.Do("POST", "/crm/consumers", f.Other, map[string]any{"email": "theirs@example.com"})
			require.Equal(f.T, http.StatusCreated, r.Status)
			return apitest.IDs{"c": f.coupon(nil), "other": r.Payload()["_id"].(string)}
		}, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem",
			Body: map[string]any{"consumerId": "{other}"}, Status: 422, Field: "consumerId"},
		{Name: "redeeming needs marketing.coupons.redeem", Given: given, Method: "POST", Path: "/marketing/coupons/{c}/actions/redeem",
			Scopes: []string{"marketing.coupons.view", "marketing.coupons.edit"}, Body: map[string]any{"consumerId": "{who}"}, Status: 403},
		{Name: "a CSV list of coupons needs the export right", Given: given, Method: "GET", Path: "/marketing/coupons?format=csv",
			Scopes: []string{"marketing.coupons.view"}, Status: 403},
		{Name: "a CSV list of redemptions needs the export right", Given: given, Method: "GET", Path: "/marketing/couponredemptions?format=csv",
			Scopes: []string{"marketing.coupons.view"}, Status: 403},
	})
}

func manyProducts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("p%d", i)
	}
	return out
}
