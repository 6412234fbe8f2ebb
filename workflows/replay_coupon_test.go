package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestRecordHistoriesCoupon runs a coupon's expiry on the real servers and
// writes its history to testdata/coupon_expiry.json: a deadline an hour
// away, moved by a write to two seconds away (a signal), then the expiry.
func TestRecordHistoriesCoupon(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/coupon_expiry.json")
	}
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("marketing.coupons.*")
	r := p.Do("POST", "/marketing/coupons", tok, map[string]any{"code": "REPLAY", "type": "freeshipping",
		"validUntil": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	require.Equal(t, 201, r.Status)
	id := r.Payload()["_id"].(string)
	time.Sleep(time.Second) // the first timer starts
	soon := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339)
	require.Equal(t, 200, p.Do("PATCH", "/marketing/coupons/"+id, tok, map[string]any{"validUntil": soon}).Status)
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	wid := contract.CouponExpiryWorkflowID(p.Customer.ID, id)
	require.NoError(t, p.Temporal.GetWorkflow(ctx, wid, "").Get(ctx, nil))
	writeHistory(ctx, t, p.Temporal, wid, filepath.Join("testdata", "coupon_expiry.json"))
}
