package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"platform/kernel/settings"
	"platform/kernel/store/mongostore"
	"platform/kernel/store/sqlitestore"
	"platform/kernel/temporalx"
)

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// The errors a replica meets when it starts before its dependencies are
// waited out; a bad setting and a local store that cannot open are not.
func TestTransientErrors(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, temporalDown := temporalx.Dial(ctx, closedAddr(t), "default", log)
	sctx, scancel := context.WithTimeout(ctx, time.Second)
	defer scancel()
	_, mongoDown := mongostore.Open(sctx, "mongodb://"+closedAddr(t)+"/", "platform")
	_, sqliteBad := sqlitestore.Open(filepath.Join("/proc/no-such-dir", "store.db"))
	for _, c := range []struct {
		name        string
		err         error
		remoteStore bool
		want        bool
	}{
		{"Temporal frontend not listening", temporalDown, true, true},
		{"MongoDB not listening", mongoDown, true, true},
		{"a connection refused, wrapped", fmt.Errorf("open: %w", &net.OpError{Op: "dial", Err: errors.New("refused")}), true, true},
		{"the embedded SQLite store cannot open its file", sqliteBad, false, false},
		{"a bad setting", &settings.InvalidError{Env: "MONGODB_URI", Reason: "bad"}, true, false},
		{"an index creation racing another replica", errors.New("E11000 duplicate key"), true, false},
	} {
		if c.err == nil {
			t.Fatalf("%s: no error to classify", c.name)
		}
		if got := transient(c.err, c.remoteStore); got != c.want {
			t.Errorf("%s: transient(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// A dependency that does not answer is waited for past
// PLATFORM_STARTUP_TIMEOUT; any other failure ends there.
func TestRetrierWaitsOutTransientErrorsOnly(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r := &retrier{log: log, deadline: time.Now().Add(-time.Minute), remoteStore: true} // already past
	refused := fmt.Errorf("connect: %w", &net.OpError{Op: "dial", Err: errors.New("connection refused")})
	calls := 0
	err := r.do(context.Background(), "connect", func(context.Context) error {
		if calls++; calls < 3 {
			return refused
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("a transient failure past the time-out: err %v after %d calls, want success at the 3rd", err, calls)
	}
	calls = 0
	err = r.do(context.Background(), "indexes", func(context.Context) error { calls++; return errors.New("E11000") })
	if err == nil || calls != 1 {
		t.Fatalf("another failure past the time-out: err %v after %d calls, want the error after 1", err, calls)
	}
}
