package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"platform/cmd/platform/app"
	"platform/kernel/auth"
	"platform/kernel/obs"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// openAdminStore opens the store of a platform that is not running (or one
// on MongoDB): the configured MongoDB, the embedded FerretDB's address, or
// the embedded SQLite file.
func openAdminStore(ctx context.Context, cfg *settings.Config) (store.Store, error) {
	if cfg.UsesEmbeddedSQLite() {
		return openStore(ctx, cfg)
	}
	uri := cfg.MongoURI
	if uri == "" {
		uri = devStore(cfg)
	}
	st, err := mongostore.Open(ctx, uri, cfg.MongoDatabase)
	if err != nil {
		return nil, fmt.Errorf("open store at %s (is platform dev running?): %w", uri, err)
	}
	return st, nil
}

func runToken(args []string) error {
	var r adminRequest
	var scope string
	var flags *flag.FlagSet
	cfg, err := settings.Load("token", args, func(fs *flag.FlagSet) {
		flags = fs
		fs.StringVar(&r.Customer, "customer", "", "customer slug (required)")
		fs.StringVar(&r.User, "user", "", "user e-mail; empty: a customer-level service token")
		fs.StringVar(&scope, "scope", "", "space-separated scopes, e.g. \"crm.* profile\" (required)")
		fs.StringVar(&r.ClientID, "client-id", "platform-cli", "client_id claim")
		fs.DurationVar(&r.TTL, "ttl", 0, "token lifetime, at most 24h (default: PLATFORM_ACCESS_TOKEN_TTL)")
	})
	if err != nil {
		return err
	}
	if !flagGiven(flags, "ttl") {
		r.TTL = cfg.AccessTokenTTL
	}
	if r.Customer == "" || strings.TrimSpace(scope) == "" {
		return &settings.UsageError{Command: "token", Err: errors.New("--customer and --scope are required")}
	}
	if err := checkTTL(r.TTL); err != nil {
		return err
	}
	r.Cmd, r.Scopes = "token", strings.Fields(scope)
	if err := checkScopes(r.Scopes); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tok, err := runAdmin(ctx, cfg, r)
	if err != nil {
		return err
	}
	fmt.Println(tok)
	return nil
}

// flagGiven says whether the command line set the flag (its zero value
// may be an explicit, wrong choice).
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// checkTTL refuses a lifetime that is not positive (the minter would
// silently make it an hour) or longer than auth.MaxTokenTTL: a minted token
// is a bearer credential until it expires, so a script asks for a new one
// rather than keeping one for weeks.
func checkTTL(ttl time.Duration) error {
	if ttl <= 0 || ttl > auth.MaxTokenTTL {
		return &settings.InvalidError{Flag: "ttl", Value: ttl.String(), Reason: "want a positive duration such as 30m, at most 24h"}
	}
	return nil
}

func runCustomer(args []string) error {
	r := adminRequest{Cmd: "customer-create"}
	flags := func(fs *flag.FlagSet) { fs.StringVar(&r.Name, "name", "", "display name (default: the slug)") }
	if len(args) < 2 || args[0] != "create" || strings.HasPrefix(args[1], "-") {
		if h := helpAsked(args); h != "" {
			_, err := settings.Load("customer create <slug>", []string{h}, flags)
			return err
		}
		return &settings.UsageError{Command: "customer", Err: errors.New("want: platform customer create <slug> [--name <name>]")}
	}
	r.Customer = args[1]
	cfg, err := settings.Load("customer create <slug>", args[2:], flags)
	if err != nil {
		return err
	}
	if r.Name == "" {
		r.Name = r.Customer
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id, err := runAdmin(ctx, cfg, r)
	if err != nil {
		return err
	}
	fmt.Println(id)
	return nil
}

// runCheck runs the self-check workflow: Temporal, the worker, the tenant
// propagation and the store, end to end.
func runCheck(args []string) error {
	var customer string
	cfg, err := settings.Load("check", args, func(fs *flag.FlagSet) {
		fs.StringVar(&customer, "customer", app.SeedCustomer, "customer slug")
	})
	if err != nil {
		return err
	}
	cfg.TemporalAddress = devTemporal(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	custID, err := runAdmin(ctx, cfg, adminRequest{Cmd: "customer-id", Customer: customer})
	if err != nil {
		return err
	}
	tc, err := temporalx.Dial(ctx, cfg.TemporalAddress, cfg.TemporalNamespace, obs.NewLogger(os.Stderr, "error"))
	if err != nil {
		return err
	}
	defer tc.Close()
	run, err := tc.ExecuteWorkflow(tenant.WithCustomer(ctx, custID), client.StartWorkflowOptions{
		ID: "selfcheck-" + store.NewID(), TaskQueue: cfg.TaskQueue,
	}, contract.WorkflowSelfCheck, contract.SelfCheckInput{Marker: store.NewID()})
	if err != nil {
		return err
	}
	var res contract.SelfCheckResult
	if err := run.Get(ctx, &res); err != nil {
		return fmt.Errorf("self-check workflow %s: %w", run.GetID(), err)
	}
	if !res.Found || res.Customer != custID {
		return fmt.Errorf("self-check workflow %s: marker not found for customer %s", run.GetID(), custID)
	}
	fmt.Printf("ok: workflow %s ran on task queue %s and wrote to the store for customer %s\n", run.GetID(), cfg.TaskQueue, customer)
	return nil
}

// helpAsked is the help flag of a command line that lacks its command
// word ("platform aggregation -h"), as Load reads it; "" when none.
func helpAsked(args []string) string {
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case "h", "help":
			return "-h"
		case "help-settings":
			return "--help-settings"
		}
	}
	return ""
}
