package testenv

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"platform/kernel/obs"
	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/temporalx"
)

// Name returns a short unique name for the test (database, task queue).
func Name(t testing.TB) string {
	n := strings.NewReplacer("/", "_", " ", "_", ".", "_").Replace(t.Name())
	if len(n) > 30 {
		n = n[:30]
	}
	return "t_" + n + "_" + store.NewID()[16:]
}

// MongoStore returns a store on a fresh database of the shared server,
// dropped when the test ends.
func MongoStore(t testing.TB) *mongostore.Store {
	t.Helper()
	a := Infra(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := mongostore.Open(ctx, a.MongoURI, Name(t))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = st.DropDatabase(ctx)
		_ = st.Close(ctx)
	})
	return st
}

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
