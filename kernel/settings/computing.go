package settings

import (
	"fmt"
	"regexp"
	"time"
)

// ComputingSettings name the compute provider the computing entities'
// start, stop and terminate actions call (docs/config-computing.md).
type ComputingSettings struct {
	// ProviderURL is the base URL of the compute provider protocol; empty:
	// the actions answer 503.
	ProviderURL string
	// ProviderToken is sent as "Authorization: Bearer <token>".
	ProviderToken string
	// Poll is how long a computing workflow waits between two reads of the
	// machine's state at the provider.
	Poll time.Duration
	// Deadline is how long a move may take at the provider before the
	// workflow gives up on it.
	Deadline time.Duration
}

// releaseName: a DNS label such as platform or crm-prod.
var releaseName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

func computingSettings() []setting {
	return []setting{
		{"PLATFORM_RELEASE", "release", "platform", "release name: the _appName the modules register their platform states under (lowercase letters, digits and hyphens)", func(c *Config, v string) error {
			c.Release = v
			if !releaseName.MatchString(v) {
				return fmt.Errorf("want lowercase letters, digits and hyphens, at most 63, such as platform")
			}
			return nil
		}},
		{"PLATFORM_COMPUTE_URL", "compute-url", "", "base URL of the compute provider the computing entity actions call (docs/config-computing.md); empty: start, stop and terminate answer 503", func(c *Config, v string) error {
			c.Computing.ProviderURL = v
			return optional(v, absURL)
		}},
		{"PLATFORM_COMPUTE_TOKEN", "compute-token", "", "bearer token sent to PLATFORM_COMPUTE_URL", func(c *Config, v string) error { c.Computing.ProviderToken = v; return nil }},
		{"PLATFORM_COMPUTE_POLL", "compute-poll", "5s", "how often a computing action reads the machine's state while it waits for a move (100ms to 5m)", func(c *Config, v string) (err error) {
			c.Computing.Poll, err = between(v, 100*time.Millisecond, 5*time.Minute)
			return
		}},
		{"PLATFORM_COMPUTE_DEADLINE", "compute-deadline", "30m", "how long a start, stop or terminate may take at the provider before it counts as failed (1s to 24h)", func(c *Config, v string) (err error) {
			c.Computing.Deadline, err = between(v, time.Second, 24*time.Hour)
			return
		}},
	}
}
