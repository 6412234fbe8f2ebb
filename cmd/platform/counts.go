package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"strconv"
	"syscall"

	"platform/kernel/settings"
	"platform/kernel/store"
)

// runCountsRepair recounts the documents behind every list-total counter
// and rewrites those that drifted (docs/counts.md): on MongoDB after a
// process died between a write and its counter's $inc. It prints how many
// counters it changed. Safe while the platform runs.
func runCountsRepair(args []string) error {
	cfg, err := settings.Load("counts-repair", args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	changed, err := runAdmin(ctx, cfg, adminRequest{Cmd: "counts-repair"})
	if err != nil {
		return err
	}
	fmt.Printf("counters changed: %s\n", changed)
	return nil
}

// repairCounts is the admin command counts-repair on st.
func repairCounts(ctx context.Context, st store.Store) (string, error) {
	r, ok := st.(interface {
		Recount(ctx context.Context) (int64, error)
	})
	if !ok {
		return "", errors.New("this store keeps no counters to repair")
	}
	n, err := r.Recount(ctx)
	return strconv.FormatInt(n, 10), err
}
