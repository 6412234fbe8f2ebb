package settings

import "fmt"

// MaxCountCap bounds PLATFORM_COUNT_CAP: a filtered list's total reads at
// most that many records per request (docs/counts.md).
const MaxCountCap = 1_000_000

func countSettings() []setting {
	return []setting{
		{"PLATFORM_COUNT_CAP", "count-cap", "10000", "how many matching records a filtered list's count=true counts at most; past it meta.total is this cap with meta.totalRelation gte (1 to 1000000; docs/counts.md)", func(c *Config, v string) error {
			n, err := positive(v)
			if err == nil && n > MaxCountCap {
				err = fmt.Errorf("want at most %d", MaxCountCap)
			}
			c.CountCap = int64(n)
			return err
		}},
	}
}
