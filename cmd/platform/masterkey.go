package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"syscall"

	"go.temporal.io/sdk/client"

	"platform/cmd/platform/app"
	"platform/kernel/obs"
	"platform/kernel/settings"
	"platform/kernel/temporalx"
	"platform/modules/config/credentials"
	"platform/workflows/contract"
)

// runRotateMasterKey re-seals every stored credential and webhook secret
// under a new master key with the RotateMasterKey workflow, and waits for
// it (docs/config-keys.md):
//   - with PLATFORM_MASTER_KEY set, that key is the new one: every api and
//     worker process must already run with it and PLATFORM_MASTER_KEY_ACCEPT
//     naming the old one;
//   - on the embedded store (<data>/master.key), the running platform dev
//     generates the new key, keeps the old one in master.key.previous until
//     the rotation finished, and switches at once.
//
// Run again after an interruption, it attaches to the rotation or starts
// it afresh, which goes on where the stored values stand.
func runRotateMasterKey(args []string) error {
	var batch int
	var noWait bool
	cfg, err := settings.Load("rotate-master-key", args, func(fs *flag.FlagSet) {
		fs.IntVar(&batch, "batch", 0, "values re-sealed per activity call (1 to 1000; default 200)")
		fs.BoolVar(&noWait, "no-wait", false, "start the rotation and return; run again to wait for it")
	})
	if err != nil {
		return err
	}
	if batch < 0 || batch > 1000 {
		return &settings.InvalidError{Flag: "batch", Value: itoa(batch), Reason: "want 1 to 1000 (0: the default)"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cfg.TemporalAddress = devTemporal(cfg)
	keyID, err := rotationKey(cfg)
	if err != nil {
		return err
	}
	tc, err := temporalx.Dial(ctx, cfg.TemporalAddress, cfg.TemporalNamespace, obs.NewLogger(os.Stderr, "error"))
	if err != nil {
		return err
	}
	defer tc.Close()
	run, err := app.StartMasterKeyRotation(ctx, tc, cfg.TaskQueue, keyID, batch)
	if err != nil {
		return err
	}
	fmt.Printf("rotation to master key %s: workflow %s\n", keyID, run.GetID())
	if noWait {
		return nil
	}
	return awaitRotation(ctx, cfg, run)
}

// rotationKey is the id of the key to rotate to: the configured key, or
// the one the running platform dev switched to (generating it when no
// rotation of its key file is under way).
func rotationKey(cfg *settings.Config) (string, error) {
	if cfg.MasterKey != "" {
		key, err := credentials.ParseMasterKey(cfg.MasterKey)
		if err != nil {
			return "", err
		}
		v, err := credentials.NewVault(key)
		return v.KeyID(), err
	}
	if cfg.MongoURI != "" {
		return "", &settings.InvalidError{Env: "PLATFORM_MASTER_KEY", Flag: "master-key",
			Reason: "set it to the new key (and PLATFORM_MASTER_KEY_ACCEPT to the old one), as every api and worker process has it"}
	}
	if !cfg.UsesEmbeddedSQLite() {
		return "", errors.New("the embedded FerretDB store keeps its key in master.key: stop platform dev, then rotate with PLATFORM_MASTER_KEY and PLATFORM_MASTER_KEY_ACCEPT (docs/config-keys.md)")
	}
	conn, err := net.Dial("unix", cfg.AdminSocket())
	if err != nil {
		return "", fmt.Errorf("platform dev is not running on %s: start it, then run this command (the running process switches keys without a restart)", cfg.DataDir)
	}
	return askSocket(conn, adminRequest{Cmd: "rotate-master-key"})
}

// awaitRotation waits for the workflow and, on the embedded store, removes
// the previous key file once nothing is sealed under it any more.
func awaitRotation(ctx context.Context, cfg *settings.Config, run client.WorkflowRun) error {
	var res contract.RotateMasterKeyResult
	if err := run.Get(ctx, &res); err != nil {
		return fmt.Errorf("rotation workflow %s: %w (run the command again to resume)", run.GetID(), err)
	}
	fmt.Printf("done: %d values re-sealed, %d read, in %d passes; every value is sealed under master key %s\n", res.Resealed, res.Scanned, res.Passes, res.KeyID)
	if cfg.MasterKey != "" || cfg.MongoURI != "" {
		fmt.Println("now remove PLATFORM_MASTER_KEY_ACCEPT from every process and restart them")
		return nil
	}
	if err := os.Remove(credentials.PreviousKeyPath(cfg)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	fmt.Printf("removed %s: the old key is no longer needed\n", credentials.PreviousKeyPath(cfg))
	return nil
}

// rotateMasterKey runs in platform dev (through the admin socket): it
// switches the process's vault to a new key, unless a rotation of the key
// file is under way already, and answers the key id to rotate to.
func (a *admin) rotateMasterKey() (string, error) {
	ap := a.app.Load()
	if ap == nil || ap.Vault == nil {
		return "", errors.New("the platform is still starting, or has no master key; try again")
	}
	prev, err := readPreviousKey(a.cfg)
	if err != nil {
		return "", err
	}
	if prev != "" && prev != ap.Vault.KeyID() {
		return ap.Vault.KeyID(), nil // under way: resume it
	}
	if prev != "" { // left by a stop between writing the two files
		if err := os.Remove(credentials.PreviousKeyPath(a.cfg)); err != nil {
			return "", err
		}
	}
	next := credentials.NewMasterKey()
	if err := credentials.InstallNextMasterKey(a.cfg, next); err != nil {
		return "", err
	}
	if err := ap.Vault.Rotate(next); err != nil {
		return "", err
	}
	return ap.Vault.KeyID(), nil
}

// readPreviousKey is the id of the key in master.key.previous, or "".
func readPreviousKey(cfg *settings.Config) (string, error) {
	b, err := os.ReadFile(credentials.PreviousKeyPath(cfg))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	key, err := credentials.ParseMasterKey(string(b))
	if err != nil {
		return "", fmt.Errorf("%s: %w", credentials.PreviousKeyPath(cfg), err)
	}
	v, err := credentials.NewVault(key)
	return v.KeyID(), err
}
