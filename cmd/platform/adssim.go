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
	"platform/modules/ads/adsim"
)

// runAdsSim serves the ad platform simulator (docs/ads.md) with a seeded
// account, so that connecting and syncing can be tried locally. Its data
// lives in its memory only.
func runAdsSim(args []string) error {
	fs := flag.NewFlagSet("ads-sim", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8092", "listen address")
	clientID := fs.String("client-id", "local-client", "the OAuth client id it accepts")
	secret := fs.String("client-secret", "local-secret", "the OAuth client secret it accepts")
	devToken := fs.String("developer-token", "local-developer-token", "the developer-token header it requires")
	account := fs.String("account", "1234567890", "the seeded account's customer id")
	var sh adsim.Shape
	fs.IntVar(&sh.Campaigns, "campaigns", 5, "seeded campaigns")
	fs.IntVar(&sh.AdGroupsPer, "adgroups", 2, "ad groups per campaign")
	fs.IntVar(&sh.KeywordsPer, "keywords", 5, "keywords per ad group")
	fs.IntVar(&sh.Days, "days", 30, "days of metrics")
	if err := settings.Parse("ads-sim", fs, args); err != nil {
		return err
	}
	if sh.Campaigns < 0 || sh.Campaigns > 10000 || sh.AdGroupsPer < 0 || sh.AdGroupsPer > 100 || sh.KeywordsPer < 0 || sh.KeywordsPer > 1000 || sh.Days < 0 || sh.Days > 730 {
		return errors.New("--campaigns 0..10000, --adgroups 0..100, --keywords 0..1000, --days 0..730")
	}
	sim := adsim.New(*clientID, *secret, *devToken)
	sim.Seed(*account, sh)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(os.Stderr, "ad platform simulator on %s, account %s with %d metric rows\n"+
		"PLATFORM_ADS_API_URL=%s PLATFORM_ADS_AUTH_URL=%s%s PLATFORM_ADS_TOKEN_URL=%s%s PLATFORM_ADS_CLIENT_ID=%s PLATFORM_ADS_CLIENT_SECRET=%s PLATFORM_ADS_DEVELOPER_TOKEN=%s PLATFORM_OUTBOUND_ALLOW=%s\n",
		base, *account, sh.Rows(), base, base, adsim.AuthPath, base, adsim.TokenPath, *clientID, *secret, *devToken, ln.Addr())
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
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
