package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"platform/kernel/obs"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/modules/aggregation/readmodel"
	"platform/workflows/contract"
)

// runAggregation is `platform aggregation rebuild [--name a,b]
// [--customer id] [--no-wait]`: it recounts the read models from the
// records (docs/aggregation.md) with the AggregationRebuild workflow and
// shows its progress. Run again while one runs, it attaches to it; each
// customer's Aggregator keeps its own cursor, so a rebuild interrupted by
// a restart goes on where it stood.
func runAggregation(args []string) error {
	var names, customer string
	var noWait bool
	flags := func(fs *flag.FlagSet) {
		fs.StringVar(&names, "name", "", "comma list of read models to rebuild ("+strings.Join(readmodel.Names(), ", ")+"); default all")
		fs.StringVar(&customer, "customer", "", "rebuild one customer's read models (its id); default every customer")
		fs.BoolVar(&noWait, "no-wait", false, "start the rebuild and return; run again to follow it")
	}
	if len(args) == 0 || args[0] != "rebuild" {
		if h := helpAsked(args); h != "" {
			_, err := settings.Load("aggregation rebuild", []string{h}, flags)
			return err
		}
		return &settings.UsageError{Command: "aggregation", Err: errors.New("want: platform aggregation rebuild [--name <models>] [--customer <id>] [--no-wait]")}
	}
	cfg, err := settings.Load("aggregation rebuild", args[1:], flags)
	if err != nil {
		return err
	}
	in, err := rebuildInput(names, customer)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cfg.TemporalAddress = devTemporal(cfg)
	tc, err := temporalx.Dial(ctx, cfg.TemporalAddress, cfg.TemporalNamespace, obs.NewLogger(os.Stderr, "error"))
	if err != nil {
		return err
	}
	defer tc.Close()
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.AggregationRebuildWorkflowID, TaskQueue: contract.QueueOf(cfg.TaskQueue, contract.WorkflowAggregationRebuild),
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, contract.WorkflowAggregationRebuild, in)
	if err != nil {
		return err
	}
	fmt.Printf("aggregation rebuild: workflow %s (run %s)\n", run.GetID(), run.GetRunID())
	if noWait {
		return nil
	}
	return followRebuild(ctx, tc, run)
}

// rebuildInput checks the flags.
func rebuildInput(names, customer string) (contract.AggregationRebuildInput, error) {
	in := contract.AggregationRebuildInput{ID: store.NewID(), Customer: customer}
	if customer != "" && !store.ValidID(customer) {
		return in, &settings.InvalidError{Flag: "customer", Value: customer, Reason: "want a customer id (24 hexadecimal digits)"}
	}
	for _, n := range strings.Split(names, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if !slices.Contains(readmodel.Names(), n) {
			return in, &settings.InvalidError{Flag: "name", Value: n, Reason: "want one of " + strings.Join(readmodel.Names(), ", ")}
		}
		in.Models = append(in.Models, n)
	}
	return in, nil
}

// followRebuild prints the progress every two seconds until the end.
func followRebuild(ctx context.Context, tc client.Client, run client.WorkflowRun) error {
	done := make(chan error, 1)
	var res contract.AggregationRebuildProgress
	go func() { done <- run.Get(ctx, &res) }()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("rebuild workflow %s: %w (run the command again to resume)", run.GetID(), err)
			}
			fmt.Printf("done: %d customers rebuilt\n", res.Finished)
			return nil
		case <-tick.C:
			v, err := tc.QueryWorkflow(ctx, run.GetID(), "", contract.QueryAggregationProgress)
			var p contract.AggregationRebuildProgress
			if err == nil && v.Get(&p) == nil {
				fmt.Printf("customers asked %d, finished %d\n", p.Requested, p.Finished)
			} else if errors.Is(ctx.Err(), context.Canceled) {
				return ctx.Err()
			}
		}
	}
}
