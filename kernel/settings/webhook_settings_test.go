package settings

import (
	"errors"
	"testing"
	"time"
)

// TestBreakerSettingsAreValidated: the circuit breaker disables a webhook
// after 50 parked deliveries in a row or 24 hours of failures by default;
// 0 turns either rule off, and a value out of range stops the process
// with an error naming the setting.
func TestBreakerSettingsAreValidated(t *testing.T) {
	c, err := Load("test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.WebhookDisableAfterParked != 50 || c.WebhookDisableAfter != 24*time.Hour {
		t.Errorf("defaults: %d parked, %s", c.WebhookDisableAfterParked, c.WebhookDisableAfter)
	}
	for _, bad := range [][2]string{
		{"webhook-disable-after-parked", "-1"}, {"webhook-disable-after-parked", "100001"}, {"webhook-disable-after-parked", "ten"},
		{"webhook-disable-after", "30m"}, {"webhook-disable-after", "8761h"}, {"webhook-disable-after", "-1h"}, {"webhook-disable-after", "soon"},
	} {
		_, err := Load("test", []string{"--" + bad[0], bad[1]})
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Flag != bad[0] {
			t.Errorf("--%s %s: %v, want an InvalidError naming it", bad[0], bad[1], err)
		}
	}
	c, err = Load("test", []string{"--webhook-disable-after-parked", "0", "--webhook-disable-after", "0"})
	if err != nil || c.WebhookDisableAfterParked != 0 || c.WebhookDisableAfter != 0 {
		t.Errorf("off: %d, %s, %v", c.WebhookDisableAfterParked, c.WebhookDisableAfter, err)
	}
	c, err = Load("test", []string{"--webhook-disable-after-parked", "200", "--webhook-disable-after", "72h"})
	if err != nil || c.WebhookDisableAfterParked != 200 || c.WebhookDisableAfter != 72*time.Hour {
		t.Errorf("accepted values: %d, %s, %v", c.WebhookDisableAfterParked, c.WebhookDisableAfter, err)
	}
}
