package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"platform/kernel/settings"
	"platform/modules/config/computing"
)

// runComputeSim serves the compute provider simulator, so that the
// computing entities' start, stop and terminate can be tried locally:
// point PLATFORM_COMPUTE_URL at it (and allow it in
// PLATFORM_OUTBOUND_ALLOW). Machines live in its memory only.
func runComputeSim(args []string) error {
	fs := flag.NewFlagSet("compute-sim", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8091", "listen address")
	delay := fs.Duration("delay", 3*time.Second, "how long a machine takes to start, stop or terminate")
	token := fs.String("token", os.Getenv("PLATFORM_COMPUTE_TOKEN"), "bearer token required of callers (default PLATFORM_COMPUTE_TOKEN; empty: none)")
	if err := settings.Parse("compute-sim", fs, args); err != nil {
		return err
	}
	if *delay < 0 || *delay > time.Hour {
		return errors.New("--delay must be between 0s and 1h")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: &computing.Simulator{Delay: *delay, Token: *token}, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "compute provider simulator on http://%s (PLATFORM_COMPUTE_URL=http://%s PLATFORM_OUTBOUND_ALLOW=%s)\n", ln.Addr(), ln.Addr(), ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
