package settings

import (
	"errors"
	"testing"

	"platform/workflows/contract"
)

// TestSlotSettings: each kind has its defaults, takes its own values, and
// refuses what the SDK would refuse (one workflow slot or one poller).
func TestSlotSettings(t *testing.T) {
	c, err := Load("test", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range contract.Kinds {
		if c.Slots[k] != DefaultSlots[k] {
			t.Errorf("%s: %+v, want the defaults %+v", k, c.Slots[k], DefaultSlots[k])
		}
	}
	c, err = Load("test", []string{"--pipelines-activity-slots", "7", "--pipelines-workflow-slots", "3", "--pipelines-pollers", "2"})
	if err != nil || c.Slots[contract.KindPipelines] != (QueueSlots{Activities: 7, Workflows: 3, Pollers: 2}) {
		t.Errorf("pipelines: %+v, %v", c.Slots[contract.KindPipelines], err)
	}
	if c.Slots[contract.KindWebhooks] != DefaultSlots[contract.KindWebhooks] {
		t.Errorf("webhooks changed with the pipelines' settings: %+v", c.Slots[contract.KindWebhooks])
	}
	t.Setenv("PLATFORM_WEBHOOKS_ACTIVITY_SLOTS", "12")
	if c, err = Load("test", nil); err != nil || c.Slots[contract.KindWebhooks].Activities != 12 {
		t.Errorf("from the environment: %+v, %v", c.Slots[contract.KindWebhooks], err)
	}
	for _, bad := range [][2]string{{"system-activity-slots", "0"}, {"webhooks-workflow-slots", "1"}, {"pipelines-pollers", "1"}, {"pipelines-pollers", "x"}} {
		_, err := Load("test", []string{"--" + bad[0], bad[1]})
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Flag != bad[0] {
			t.Errorf("--%s %s: %v, want an InvalidError naming it", bad[0], bad[1], err)
		}
	}
}
