package marketing

import (
	"context"
	"regexp"
	"strings"
	"time"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/marketing/coupon"
)

var codePattern = regexp.MustCompile(`^[A-Z0-9][A-Z0-9_-]*$`)

// Coupons declares /coupons. Rights: marketing.coupons.{view|create|edit|
// delete|export}, and marketing.coupons.redeem for the redeem action.
func Coupons(d Deps) *resource.Resource {
	return &resource.Resource{
		Plural: coupon.Collection, Title: "coupon", Export: true,
		Fields: []resource.Field{
			{Name: "code", Type: resource.TString, Required: true, MaxLen: 64, Unique: true, Filter: true, Sort: true,
				Description: "unique per customer, case-insensitively: stored in capitals; letters, digits, - and _"},
			{Name: "type", Type: resource.TString, Required: true, Enum: []string{"percent", "fixed", "freeshipping"}, Filter: true, Sort: true},
			{Name: "value", Type: resource.TNumber, Filter: true, Sort: true,
				Description: "percent: more than 0 and at most 100; fixed: more than 0; freeshipping: absent or 0"},
			{Name: "validFrom", Type: resource.TDate, Filter: true, Sort: true, Description: "first moment of validity; absent: from creation"},
			{Name: "validUntil", Type: resource.TDate, Filter: true, Sort: true,
				Description: "last moment of validity; when it passes the platform sets _status expired (a Temporal timer per coupon)"},
			{Name: "usageLimit", Type: resource.TInteger, Filter: true, Description: "global maximum of redemptions (at least 1); absent: no limit"},
			{Name: "perUserLimit", Type: resource.TInteger, Filter: true, Description: "maximum redemptions per consumer (at least 1); absent: no limit"},
			{Name: "applicableProducts", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: 128}, Filter: true,
				Description: "product ids the coupon applies to (at most 1000); empty or absent: every product"},
			{Name: "_status", Type: resource.TString, ReadOnly: true, Default: coupon.StatusActive,
				Enum: []string{coupon.StatusActive, coupon.StatusPaused, coupon.StatusExpired}, Filter: true, Sort: true,
				Description: "active -> paused (pause), paused -> active (resume), active or paused -> expired (validUntil passed), expired -> active (resume, once validUntil is in the future)"},
		},
		Events: []string{coupon.EventExpired},
		Actions: []resource.Action{
			{Name: "pause", Title: "stop redemptions until resumed", Event: coupon.EventPaused, Run: pauseCoupon(d)},
			{Name: "resume", Title: "allow redemptions again (an expired coupon once its validUntil is in the future)", Event: coupon.EventResumed, Run: resumeCoupon(d)},
			{Name: "redeem", Title: "redeem the coupon for a consumer, within its limits", Right: "marketing.coupons.redeem", Event: coupon.EventRedeemed,
				Body: redeemBody(), Run: redeemCoupon(d)},
		},
		Relations: []resource.Relation{
			{Rel: "redemptions", Title: "redemptions of the coupon", Target: "marketing/" + coupon.RedemptionsCollection, Key: "coupon"},
		},
		Hooks: resource.Hooks{BeforeWrite: checkCoupon, AfterWrite: watchExpiry(d)},
	}
}

func redeemBody() []resource.Field {
	return []resource.Field{
		{Name: "consumerId", Type: resource.TObjectID, Required: true, Description: "the consumer who redeems"},
		{Name: "orderRef", Type: resource.TString, MaxLen: 200, Description: "the order the coupon is redeemed for"},
		{Name: "productIds", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: 128},
			Description: "products of the order (at most 1000); required when the coupon has applicableProducts, one of which must be named"},
	}
}

// checkCoupon checks what the field declarations cannot: the code's form,
// the value for the type, the validity window, the limits.
func checkCoupon(_ context.Context, w *resource.Write) error {
	var errs []resource.ErrorEntry
	if code, ok := w.New["code"].(string); ok {
		w.New["code"] = strings.ToUpper(strings.TrimSpace(code))
		if !codePattern.MatchString(w.New["code"].(string)) {
			errs = append(errs, resource.FieldError(resource.CodeFormat, "code", "a coupon code has letters, digits, - and _ only, and starts with a letter or digit"))
		}
	}
	errs = append(errs, checkValue(w.New)...)
	errs = append(errs, checkWindow(w.New)...)
	errs = append(errs, checkLimits(w.New)...)
	if len(store.Strings(w.New["applicableProducts"])) > coupon.MaxProducts {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "applicableProducts", "at most %d products", coupon.MaxProducts))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}

func checkValue(doc store.Doc) []resource.ErrorEntry {
	v, has := number(doc["value"])
	bad := func(format string) []resource.ErrorEntry {
		return []resource.ErrorEntry{resource.FieldError(resource.CodeInvalid, "value", "%s", format)}
	}
	switch doc["type"] {
	case "percent":
		if !has || v <= 0 || v > 100 {
			return bad("a percent coupon's value is more than 0 and at most 100")
		}
	case "fixed":
		if !has || v <= 0 {
			return bad("a fixed coupon's value is an amount more than 0")
		}
	case "freeshipping":
		if has && v != 0 {
			return bad("a freeshipping coupon takes no value (absent or 0)")
		}
	}
	return nil
}

func checkWindow(doc store.Doc) []resource.ErrorEntry {
	from, okFrom := doc["validFrom"].(time.Time)
	until, okUntil := doc["validUntil"].(time.Time)
	if okFrom && okUntil && from.After(until) {
		return []resource.ErrorEntry{resource.FieldError(resource.CodeInvalid, "validUntil", "validUntil is before validFrom")}
	}
	return nil
}

func checkLimits(doc store.Doc) []resource.ErrorEntry {
	var errs []resource.ErrorEntry
	for _, f := range []string{"usageLimit", "perUserLimit"} {
		if n, ok := doc[f].(int64); ok && n < 1 {
			errs = append(errs, resource.FieldError(resource.CodeInvalid, f, "%s is at least 1 (leave it out for no limit)", f))
		}
	}
	return errs
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
