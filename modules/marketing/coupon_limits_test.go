package marketing_test

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/modules/marketing/coupon"
	"platform/test/testenv"
)

// redeemAll makes n redemptions at once, by the consumers who(i), and
// counts the answers by status.
func redeemAll(f *couponFixture, id string, n int, who func(i int) string) map[int]int {
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := f.P.Do("POST", "/marketing/coupons/"+id+"/actions/redeem", f.Admin, map[string]any{"consumerId": who(i)})
			mu.Lock()
			statuses[r.Status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return statuses
}

func (f *couponFixture) redemptions(id string) int64 {
	n, err := f.P.Store.Collection(coupon.RedemptionsCollection).Count(f.P.Ctx(), query.Eq("coupon", id))
	require.NoError(f.T, err)
	return n
}

// TestCouponLimitsHoldUnderConcurrency: parallel redemptions through the
// API (many store connections on FerretDB, where findAndModify is not
// atomic across them) never pass a limit.
func TestCouponLimitsHoldUnderConcurrency(t *testing.T) {
	f := newCouponFixture(t, testenv.Options{})
	t.Run("usageLimit", func(t *testing.T) {
		f := f.For(t)
		id := f.coupon(map[string]any{"usageLimit": 10})
		consumers := make([]string, 100)
		for i := range consumers {
			consumers[i] = f.consumer()
		}
		statuses := redeemAll(f, id, 100, func(i int) string { return consumers[i] })
		assert.Equal(t, map[int]int{http.StatusOK: 10, http.StatusConflict: 90}, statuses)
		assert.EqualValues(t, 10, f.redemptions(id))
	})
	t.Run("perUserLimit", func(t *testing.T) {
		f := f.For(t)
		id, who := f.coupon(map[string]any{"perUserLimit": 2}), f.consumer()
		statuses := redeemAll(f, id, 20, func(int) string { return who })
		assert.Equal(t, map[int]int{http.StatusOK: 2, http.StatusConflict: 18}, statuses)
		assert.EqualValues(t, 2, f.redemptions(id))
		other := f.P.Do("POST", "/marketing/coupons/"+id+"/actions/redeem", f.Admin, map[string]any{"consumerId": f.consumer()})
		assert.Equal(t, http.StatusOK, other.Status, "the limit is per consumer")
	})
	t.Run("the refusal names the limit", func(t *testing.T) {
		f := f.For(t)
		id, who := f.coupon(map[string]any{"usageLimit": 1}), f.consumer()
		require.Equal(t, http.StatusOK, f.P.Do("POST", "/marketing/coupons/"+id+"/actions/redeem", f.Admin, map[string]any{"consumerId": who}).Status)
		r := f.P.Do("POST", "/marketing/coupons/"+id+"/actions/redeem", f.Admin, map[string]any{"consumerId": who})
		require.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, []string{"conflict.state"}, r.ErrorCodes())
		assert.Contains(t, string(r.Body), "usageLimit")
	})
}

// TestCouponExpiresByItsTimer: the expiry workflow sets expired when
// validUntil passes, follows a deadline moved earlier, and an expired
// coupon resumes once its validUntil is in the future.
func TestCouponExpiresByItsTimer(t *testing.T) {
	f := newCouponFixture(t, testenv.Options{Worker: true})
	status := func(id string) any { return f.Stored(coupon.Collection, id)["_status"] }

	soon := f.coupon(map[string]any{"validUntil": rfc(time.Now().Add(2 * time.Second))})
	assert.Equal(t, "active", status(soon))
	require.Eventually(t, func() bool { return status(soon) == "expired" }, time.Minute, 100*time.Millisecond)
	// The event is recorded just after the write that expires the coupon.
	require.Eventually(t, func() bool { return slices.Contains(eventNames(f), "coupons.expired") }, 10*time.Second, 50*time.Millisecond,
		"coupons.expired is emitted: %v", eventNames(f))

	later := f.coupon(map[string]any{"validUntil": rfc(time.Now().Add(time.Hour))})
	r := f.P.Do("PATCH", "/marketing/coupons/"+later, f.Admin, map[string]any{"validUntil": rfc(time.Now().Add(time.Second))})
	require.Equal(t, http.StatusOK, r.Status)
	require.Eventually(t, func() bool { return status(later) == "expired" }, time.Minute, 100*time.Millisecond,
		"a deadline moved earlier is kept")

	refused := f.P.Do("POST", "/marketing/coupons/"+later+"/actions/resume", f.Admin, nil)
	require.Equal(t, http.StatusConflict, refused.Status, "resuming needs a future validUntil")
	require.Equal(t, http.StatusOK, f.P.Do("PATCH", "/marketing/coupons/"+later, f.Admin, map[string]any{"validUntil": rfc(time.Now().Add(time.Hour))}).Status)
	resumed := f.P.Do("POST", "/marketing/coupons/"+later+"/actions/resume", f.Admin, nil)
	require.Equal(t, http.StatusOK, resumed.Status)
	assert.Equal(t, "active", resumed.Payload()["_status"])
	time.Sleep(2 * time.Second)
	assert.Equal(t, "active", status(later), "the old deadline does not expire it again")
}

func eventNames(f *couponFixture) []string {
	var out []string
	for _, e := range f.Events() {
		out = append(out, e.Name)
	}
	return out
}
