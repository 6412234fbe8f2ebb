package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// DefaultCronMinInterval is the default of PLATFORM_CRON_MIN_INTERVAL: a
// schedule that fires more often would make one pipeline a steady load.
const DefaultCronMinInterval = time.Minute

// CheckCron validates a cron expression (five fields, or @hourly, @daily,
// @every 15m ...) and an IANA time zone ("" means UTC), and that it fires
// at most once per min (0: DefaultCronMinInterval). It returns the setting
// at fault ("cron" or "timezone") and why, or "", "".
func CheckCron(expr, tz string, min time.Duration) (setting, why string) {
	switch {
	case expr == "":
		return "cron", `cron is required, e.g. "0 9 * * 1-5" or "@hourly"`
	case strings.Contains(expr, "TZ="):
		return "cron", "set the time zone in timezone, not in the expression"
	case len(strings.Fields(expr)) == 6:
		return "cron", fmt.Sprintf("cron %q has a seconds field: use five fields (minute hour day month weekday); schedules fire at most once a minute", expr)
	}
	sched, err := cron.ParseStandard(expr)
	if err != nil {
		return "cron", fmt.Sprintf("cron %q: %v", expr, err)
	}
	if min <= 0 {
		min = DefaultCronMinInterval
	}
	if gap := shortestGap(sched); gap < min {
		return "cron", fmt.Sprintf("cron %q fires every %s; cron triggers fire at most once every %s (PLATFORM_CRON_MIN_INTERVAL)", expr, gap, min)
	}
	if tz != "" {
		if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
			return "timezone", fmt.Sprintf("timezone %q is not an IANA time zone such as Europe/Berlin", tz)
		}
	}
	return "", ""
}

// shortestGap is the shortest time between two firings of a schedule,
// over its firings in a sample year (a five-field expression repeats
// within one; its gaps are whole minutes).
func shortestGap(s cron.Schedule) time.Duration {
	if every, ok := s.(cron.ConstantDelaySchedule); ok {
		return every.Delay
	}
	const samples = 5000
	t := s.Next(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	shortest := time.Duration(1<<63 - 1)
	for i := 0; i < samples && shortest > time.Minute; i++ {
		next := s.Next(t)
		if next.IsZero() {
			break
		}
		shortest = min(shortest, next.Sub(t))
		t = next
	}
	return shortest
}
