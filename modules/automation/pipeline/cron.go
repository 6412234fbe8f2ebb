package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// CheckCron validates a cron expression (five fields, or @hourly, @daily,
// @every 15m ...) and an IANA time zone ("" means UTC). It returns the
// setting at fault ("cron" or "timezone") and why, or "", "".
func CheckCron(expr, tz string) (setting, why string) {
	switch {
	case expr == "":
		return "cron", `cron is required, e.g. "0 9 * * 1-5" or "@hourly"`
	case strings.Contains(expr, "TZ="):
		return "cron", "set the time zone in timezone, not in the expression"
	}
	if _, err := cron.ParseStandard(expr); err != nil {
		return "cron", fmt.Sprintf("cron %q: %v", expr, err)
	}
	if tz != "" {
		if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
			return "timezone", fmt.Sprintf("timezone %q is not an IANA time zone such as Europe/Berlin", tz)
		}
	}
	return "", ""
}
