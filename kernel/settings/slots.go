package settings

import (
	"fmt"
	"strconv"
	"strings"

	"platform/workflows/contract"
)

// QueueSlots bound the Temporal worker that polls one kind's task queue
// in one worker process. A kind's work waits for its own slots only, so
// pipelines saturated with failing steps leave webhook deliveries theirs.
type QueueSlots struct {
	// Activities is how many activities, and separately how many local
	// activities (a pipeline's transforms, db and function steps, the run
	// record's writes), run at once.
	Activities int
	// Workflows is how many workflow tasks are processed at once.
	Workflows int
	// Pollers is how many long polls of each task type are open at once.
	Pollers int
}

// DefaultSlots are each kind's defaults. Webhook attempts and pipeline
// http steps mostly wait on the network, so their kinds get many activity
// slots; system work is a self-check and the hourly housekeeping.
var DefaultSlots = map[contract.Kind]QueueSlots{
	contract.KindSystem:    {Activities: 10, Workflows: 10, Pollers: 2},
	contract.KindWebhooks:  {Activities: 100, Workflows: 50, Pollers: 4},
	contract.KindPipelines: {Activities: 100, Workflows: 50, Pollers: 4},
	contract.KindMail:      {Activities: 20, Workflows: 20, Pollers: 2},
}

// slotSettings are the three settings of each kind:
// PLATFORM_<KIND>_ACTIVITY_SLOTS, _WORKFLOW_SLOTS and _POLLERS.
func slotSettings() []setting {
	var out []setting
	for _, k := range contract.Kinds {
		d := DefaultSlots[k]
		out = append(out,
			slotSetting(k, "activity-slots", d.Activities, 1, "activities (and, apart, local activities) of "+string(k)+" work one worker process runs at once",
				func(s *QueueSlots, n int) { s.Activities = n }),
			slotSetting(k, "workflow-slots", d.Workflows, 2, "workflow tasks of "+string(k)+" work one worker process runs at once (at least 2)",
				func(s *QueueSlots, n int) { s.Workflows = n }),
			slotSetting(k, "pollers", d.Pollers, 2, "long polls of each task type one worker process keeps open on the "+string(k)+" task queue (at least 2)",
				func(s *QueueSlots, n int) { s.Pollers = n }),
		)
	}
	return out
}

// slotSetting is one bound of kind k, at least least (the SDK refuses one
// workflow slot or one workflow poller).
func slotSetting(k contract.Kind, name string, def, least int, help string, set func(*QueueSlots, int)) setting {
	flagName := string(k) + "-" + name
	env := "PLATFORM_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
	return setting{env, flagName, strconv.Itoa(def), help, func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < least {
			return fmt.Errorf("want a whole number of at least %d", least)
		}
		if c.Slots == nil {
			c.Slots = map[contract.Kind]QueueSlots{}
		}
		s := c.Slots[k]
		set(&s, n)
		c.Slots[k] = s
		return nil
	}}
}
