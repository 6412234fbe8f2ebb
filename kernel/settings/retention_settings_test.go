package settings

import (
	"errors"
	"testing"
	"time"
)

// TestRetentionSettingsAreValidated: the retentions default to 30 days and
// the schedule to an hour; a value below the minimum or above the maximum
// stops the process with an error naming the setting.
func TestRetentionSettingsAreValidated(t *testing.T) {
	c, err := Load("test", nil)
	if err != nil {
		t.Fatal(err)
	}
	month := 720 * time.Hour
	if c.EventRetention != month || c.DeliveryRetention != month || c.RunRetention != month || c.RetentionInterval != time.Hour {
		t.Errorf("defaults: events %s, deliveries %s, runs %s, interval %s", c.EventRetention, c.DeliveryRetention, c.RunRetention, c.RetentionInterval)
	}
	for _, bad := range [][2]string{
		{"event-retention", "30m"}, {"event-retention", "87601h"},
		{"delivery-retention", "0s"}, {"run-retention", "1m"},
		{"retention-interval", "30s"}, {"retention-interval", "25h"},
	} {
		_, err := Load("test", []string{"--" + bad[0], bad[1]})
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Flag != bad[0] {
			t.Errorf("--%s %s: %v, want an InvalidError naming it", bad[0], bad[1], err)
		}
	}
	c, err = Load("test", []string{"--event-retention", "168h", "--run-retention", "2160h"})
	if err != nil || c.EventRetention != 168*time.Hour || c.RunRetention != 2160*time.Hour {
		t.Errorf("accepted values: %v, %v", c.EventRetention, err)
	}
}
