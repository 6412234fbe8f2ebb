package main

import (
	"errors"
	"fmt"
	"syscall"

	"platform/cmd/platform/embedded"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/config/credentials"
)

// permanent reports whether a start-up error is one no retry can fix, so
// the process stops at once with it instead of retrying a step until
// PLATFORM_STARTUP_TIMEOUT: a bad setting, a master key that cannot open
// the store's sealed values, a damaged database file. Everything else
// (a store or Temporal not reachable yet, replicas racing each other) is
// transient. Every start-up retry uses this one classification.
func permanent(err error) bool {
	var inv *settings.InvalidError
	return errors.As(err, &inv) || errors.Is(err, credentials.ErrKeyRefused) || store.Corrupt(err)
}

// damaged explains a damaged database file and the way back: no retry.
func damaged(what string, err error) error {
	return fmt.Errorf("%s is damaged, which no retry mends: stop the platform, move the data directory aside and "+
		"restore it from the last `platform backup` (docs/backup.md, \"Restore\"): %w", what, err)
}

// listenSettings names the setting that chose each embedded listener.
var listenSettings = map[string]struct{ env, flag, zero string }{
	embedded.PartStore:    {"PLATFORM_STORE_ADDR", "store-addr", "127.0.0.1:0"},
	embedded.PartTemporal: {"PLATFORM_TEMPORAL_PORT", "temporal-port", "0"},
	embedded.PartUI:       {"PLATFORM_TEMPORAL_UI_PORT", "temporal-ui-port", "0"},
}

// namedListenError names the setting of an address the process cannot
// listen on, as the HTTP listener's error does.
func namedListenError(err error) error {
	var le *embedded.ListenError
	if !errors.As(err, &le) {
		return err
	}
	s := listenSettings[le.Part]
	return listenFailed(s.env, s.flag, le.Addr, s.zero, le.Err)
}

// listenFailed is the one text of a listener that failed: the address,
// the setting that chose it, and what to set instead.
func listenFailed(env, flag, addr, zero string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) && zero == "" {
		return fmt.Errorf("%s is already in use (is another platform running?): set %s (--%s) to a free address", addr, env, flag)
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%s is already in use (is another platform running?): set %s (--%s) to a free one, or %s for any free port",
			addr, env, flag, zero)
	}
	return fmt.Errorf("cannot listen on %s (%s, --%s): %w", addr, env, flag, err)
}
