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

	"platform/app"
	"platform/auth"
	"platform/config"
	"platform/identity"
	"platform/obs"
	"platform/store"
	"platform/store/mongostore"
	"platform/temporalx"
	"platform/tenant"
	"platform/workflows"
)

// openAdminStore opens the store of a running (or stopped) platform: the
// configured MongoDB, or the embedded store's address.
func openAdminStore(ctx context.Context, cfg *config.Config) (store.Store, error) {
	uri := cfg.MongoURI
	if uri == "" {
		uri = "mongodb://" + cfg.StoreAddr + "/"
	}
	st, err := mongostore.Open(ctx, uri, cfg.MongoDatabase)
	if err != nil {
		return nil, fmt.Errorf("open store at %s (is platform dev running?): %w", uri, err)
	}
	return st, nil
}

func runToken(args []string) error {
	var customer, user, scope, clientID string
	var ttl time.Duration
	cfg, err := config.Load("token", args, func(fs *flag.FlagSet) {
		fs.StringVar(&customer, "customer", "", "customer slug (required)")
		fs.StringVar(&user, "user", "", "user e-mail; empty: a customer-level service token")
		fs.StringVar(&scope, "scope", "", "space-separated scopes, e.g. \"crm.* profile\" (required)")
		fs.StringVar(&clientID, "client-id", "platform-cli", "client_id claim")
		fs.DurationVar(&ttl, "ttl", time.Hour, "token lifetime")
	})
	if err != nil {
		return err
	}
	if customer == "" || strings.TrimSpace(scope) == "" {
		return errors.New("--customer and --scope are required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := openAdminStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close(context.Background())
	ids := &identity.Service{Store: st}
	cust, err := ids.CustomerBySlug(ctx, customer)
	if err != nil {
		return fmt.Errorf("customer %q: %w", customer, err)
	}
	in := auth.MintInput{Customer: cust.ID, ClientID: clientID, Scopes: strings.Fields(scope), TTL: ttl}
	if user != "" {
		u, err := ids.UserByEmail(tenant.WithCustomer(ctx, cust.ID), user)
		if err != nil {
			return fmt.Errorf("user %q of %q: %w", user, customer, err)
		}
		in.User = u.ID
	}
	m := &auth.Minter{Keys: auth.NewKeyRing(st), Issuer: cfg.AuthURL, Audience: cfg.GatewayURL}
	tok, _, err := m.Mint(ctx, in)
	if err != nil {
		return err
	}
	fmt.Println(tok)
	return nil
}

func runCustomer(args []string) error {
	if len(args) < 2 || args[0] != "create" || strings.HasPrefix(args[1], "-") {
		return errors.New("usage: platform customer create <slug> [flags]")
	}
	slug := args[1]
	var name string
	cfg, err := config.Load("customer create", args[2:], func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "display name (default: the slug)")
	})
	if err != nil {
		return err
	}
	if name == "" {
		name = slug
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := openAdminStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close(context.Background())
	ids := &identity.Service{Store: st}
	if err := ids.EnsureIndexes(ctx); err != nil {
		return err
	}
	c, _, err := ids.EnsureCustomer(ctx, slug, name, []string{"*"})
	if err != nil {
		return err
	}
	fmt.Println(c.ID)
	return nil
}

// runCheck runs the self-check workflow: Temporal, the worker, the tenant
// propagation and the store, end to end.
func runCheck(args []string) error {
	var customer string
	cfg, err := config.Load("check", args, func(fs *flag.FlagSet) {
		fs.StringVar(&customer, "customer", app.SeedCustomer, "customer slug")
	})
	if err != nil {
		return err
	}
	if cfg.TemporalAddress == "" {
		cfg.TemporalAddress = fmt.Sprintf("127.0.0.1:%d", cfg.TemporalPort)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := openAdminStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close(context.Background())
	cust, err := (&identity.Service{Store: st}).CustomerBySlug(ctx, customer)
	if err != nil {
		return fmt.Errorf("customer %q: %w", customer, err)
	}
	tc, err := temporalx.Dial(ctx, cfg.TemporalAddress, cfg.TemporalNamespace, obs.NewLogger(os.Stderr, "error"))
	if err != nil {
		return err
	}
	defer tc.Close()
	run, err := tc.ExecuteWorkflow(tenant.WithCustomer(ctx, cust.ID), client.StartWorkflowOptions{
		ID: "selfcheck-" + store.NewID(), TaskQueue: cfg.TaskQueue,
	}, workflows.SelfCheck, workflows.SelfCheckInput{Marker: store.NewID()})
	if err != nil {
		return err
	}
	var res workflows.SelfCheckResult
	if err := run.Get(ctx, &res); err != nil {
		return fmt.Errorf("self-check workflow %s: %w", run.GetID(), err)
	}
	if !res.Found || res.Customer != cust.ID {
		return fmt.Errorf("self-check workflow %s: marker not found for customer %s", run.GetID(), cust.ID)
	}
	fmt.Printf("ok: workflow %s ran on task queue %s and wrote to the store for customer %s\n", run.GetID(), cfg.TaskQueue, customer)
	return nil
}
