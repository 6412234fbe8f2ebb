package settings

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestHelpShowsOwnFlagsFirst: -h answers a Help (exit 0) with the
// command's own flags only; --help-settings lists the settings; a bad
// command line is one UsageError line pointing at -h.
func TestHelpShowsOwnFlagsFirst(t *testing.T) {
	var customer string
	own := func(fs *flag.FlagSet) { fs.StringVar(&customer, "customer", "", "customer slug (required)") }
	var help *Help
	_, err := Load("token", []string{"-h"}, own)
	if !errors.As(err, &help) {
		t.Fatalf("-h: err = %v, want *Help", err)
	}
	if !strings.Contains(help.Text, "-customer") || strings.Contains(help.Text, "PLATFORM_RATE_LIMIT") || !strings.Contains(help.Text, "--help-settings") {
		t.Errorf("-h shows the settings, or not its own flag:\n%s", help.Text)
	}
	if n := strings.Count(help.Text, "\n"); n > 15 {
		t.Errorf("-h is %d lines", n)
	}
	_, err = Load("token", []string{"--help-settings"}, own)
	if !errors.As(err, &help) || !strings.Contains(help.Text, "PLATFORM_RATE_LIMIT  --rate-limit (default \"2500\")") {
		t.Errorf("--help-settings: %v", err)
	}
	if strings.Contains(help.Text, "(default \"\")") {
		t.Error("empty defaults are shown")
	}
	var usage *UsageError
	_, err = Load("token", []string{"--nosuch"}, own)
	if !errors.As(err, &usage) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "platform token -h") {
		t.Errorf("unknown flag: %v", err)
	}
	_, err = Load("customer create <slug>", []string{"stray"})
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "see: platform customer create -h") {
		t.Errorf("stray argument: %v", err)
	}
}

// TestAcceptLostMasterKeyIsABareFlag: a boolean setting may be given as
// --accept-lost-master-key, =false, or in the environment.
func TestAcceptLostMasterKeyIsABareFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want bool
	}{
		{nil, "", false},
		{[]string{"--accept-lost-master-key"}, "", true},
		{[]string{"--accept-lost-master-key", "--log-level", "warn"}, "", true},
		{[]string{"--accept-lost-master-key=false"}, "true", false},
		{nil, "true", true},
	} {
		env := tc.env
		if env == "" {
			env = "false"
		}
		t.Setenv("PLATFORM_ACCEPT_LOST_MASTER_KEY", env)
		cfg, err := Load("dev", tc.args)
		if err != nil || cfg.AcceptLostMasterKey != tc.want {
			t.Errorf("%v env %q: %v, %v", tc.args, tc.env, cfg != nil && cfg.AcceptLostMasterKey, err)
		}
	}
	t.Setenv("PLATFORM_ACCEPT_LOST_MASTER_KEY", "maybe")
	var inv *InvalidError
	if _, err := Load("dev", nil); !errors.As(err, &inv) || inv.Env != "PLATFORM_ACCEPT_LOST_MASTER_KEY" {
		t.Errorf("a bad value: %v", err)
	}
}

// TestTemporalPortsAndUI: 0 picks a free port for both Temporal ports, off
// turns the UI off; the console links runs into the embedded UI although
// starting it filled TemporalAddress (it used to link nowhere under dev).
func TestTemporalPortsAndUI(t *testing.T) {
	for _, tc := range []struct {
		ui   string
		want int
	}{{"0", 0}, {"off", UIOff}, {"9233", 9233}} {
		cfg, err := Load("dev", []string{"--temporal-port", "0", "--temporal-ui-port", tc.ui})
		if err != nil || cfg.TemporalUIPort != tc.want || cfg.TemporalPort != 0 {
			t.Errorf("ui %s: %+v %v", tc.ui, cfg, err)
		}
	}
	if _, err := Load("dev", []string{"--temporal-ui-port", "on"}); err == nil {
		t.Error("a bad UI port is accepted")
	}
	cfg := &Config{TemporalAddress: "127.0.0.1:7233", TemporalUIPort: 8233, EmbeddedTemporalUI: "http://localhost:8233"}
	if got := cfg.TemporalUI(); got != "http://localhost:8233" {
		t.Errorf("embedded UI: %q", got)
	}
	cfg.Console.TemporalUIURL = "https://temporal.example.com"
	if got := cfg.TemporalUI(); got != "https://temporal.example.com" {
		t.Errorf("the setting wins: %q", got)
	}
	if got := (&Config{TemporalAddress: "temporal:7233", TemporalUIPort: 8233}).TemporalUI(); got != "" {
		t.Errorf("an external Temporal without PLATFORM_TEMPORAL_UI_URL has no known UI: %q", got)
	}
}
