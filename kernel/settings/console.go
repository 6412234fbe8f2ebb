package settings

import (
	"strings"
	"time"
)

// ConsoleSettings shape the admin console (modules/console, docs/console.md).
type ConsoleSettings struct {
	// URL is the console's public base address; empty: {gateway_url}/console.
	URL string
	// TemporalUIURL is the Temporal Web UI the console links runs into;
	// empty: the embedded dev server's UI (EmbeddedTemporalUI) when
	// Temporal is embedded, else no links.
	TemporalUIURL string
	// SessionTTL is how long a console sign-in lasts at most.
	SessionTTL time.Duration
}

func consoleSettings() []setting {
	return []setting{
		{"PLATFORM_CONSOLE_URL", "console-url", "", "public base URL of the admin console (default: <gateway url>/console; a host such as https://console.example.com serves it at its root)", func(c *Config, v string) error {
			c.Console.URL = strings.TrimRight(v, "/")
			return optional(v, absURL)
		}},
		{"PLATFORM_TEMPORAL_UI_URL", "temporal-ui-url", "", "Temporal Web UI base URL the console links workflow runs to (default: the embedded UI on localhost when Temporal is embedded)", func(c *Config, v string) error {
			c.Console.TemporalUIURL = strings.TrimRight(v, "/")
			return optional(v, absURL)
		}},
		{"PLATFORM_CONSOLE_SESSION_TTL", "console-session-ttl", "8h", "how long a console sign-in lasts at most (5m to 30 days)", func(c *Config, v string) (err error) {
			c.Console.SessionTTL, err = between(v, 5*time.Minute, 30*24*time.Hour)
			return
		}},
	}
}

// ConsoleURL is the console's base address.
func (c *Config) ConsoleURL() string {
	if c.Console.URL != "" {
		return c.Console.URL
	}
	return c.GatewayURL + "/console"
}

// TemporalUI is the Temporal Web UI's base address, or empty when none is
// known: the configured one, else the UI of the Temporal this process
// embeds (platform dev fills TemporalAddress when it starts it, so that
// cannot tell).
func (c *Config) TemporalUI() string {
	if c.Console.TemporalUIURL != "" {
		return c.Console.TemporalUIURL
	}
	return c.EmbeddedTemporalUI
}
