package testenv

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"go.temporal.io/sdk/client"

	"platform/kernel/obs"
	"platform/kernel/temporalx"
)

// Temporal returns a client of the shared server and a task queue of the test's own.
func Temporal(t testing.TB) (client.Client, string) {
	t.Helper()
	return temporalWith(t, Logger(t))
}

func temporalWith(t testing.TB, log *slog.Logger) (client.Client, string) {
	t.Helper()
	a := Infra(t)
	c, err := temporalx.Dial(context.Background(), a.TemporalAddress, "default", log)
	if err != nil {
		t.Fatalf("dial Temporal: %v", err)
	}
	t.Cleanup(c.Close)
	return c, Name(t)
}

// Logger logs at error level unless PLATFORM_TEST_LOG is set.
func Logger(testing.TB) *slog.Logger {
	lvl := os.Getenv("PLATFORM_TEST_LOG")
	if lvl == "" {
		lvl = "error"
	}
	return obs.NewLogger(os.Stderr, lvl)
}
