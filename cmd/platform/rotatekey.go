package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"platform/kernel/auth"
	"platform/kernel/settings"
	"platform/kernel/store"
)

// runRotateSigningKey starts a rotation of the access-token signing key:
// the next key is published in the JWKS at once and signs from --lead on;
// the current one stays published until every token it signed expired.
func runRotateSigningKey(args []string) error {
	r := adminRequest{Cmd: "rotate-signing-key"}
	cfg, err := settings.Load("rotate-signing-key", args, func(fs *flag.FlagSet) {
		fs.DurationVar(&r.Lead, "lead", auth.NextKeyLead, "how long the next key is published before it signs (at least "+auth.MinNextKeyLead.String()+")")
	})
	if err != nil {
		return err
	}
	if r.Lead < auth.MinNextKeyLead {
		return &settings.InvalidError{Flag: "lead", Value: r.Lead.String(),
			Reason: "want at least " + auth.MinNextKeyLead.String() + ": clients cache the JWKS, and every replica must learn of the key before it signs"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := runAdmin(ctx, cfg, r)
	if err != nil {
		return err
	}
	fmt.Println(out)
	return nil
}

// rotateSigningKey publishes the next key in st and says what happens when.
func rotateSigningKey(ctx context.Context, st store.Store, lead time.Duration) (string, error) {
	keys := auth.NewKeyRing(st)
	current, err := keys.Active(ctx)
	if err != nil {
		return "", err
	}
	next, err := keys.PublishNext(ctx, lead)
	if err != nil {
		return "", err
	}
	retires, err := keys.RetiresAt(ctx, current.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("published signing key %s: it signs from %s; key %s stays published until %s",
		next.ID, next.ActivatesAt.Format(time.RFC3339), current.ID, retires.Format(time.RFC3339)), nil
}
