package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"platform/kernel/obs"
	"platform/kernel/settings"
)

// runInfra runs only the embedded servers, for tests of the MongoDB path and
// tools such as mongosh. It prints the addresses as environment lines.
func runInfra(args []string) error {
	var envFile string
	var watchStdin bool
	cfg, err := settings.Load("infra", args, func(fs *flag.FlagSet) {
		fs.StringVar(&envFile, "env-file", "", "also write MONGODB_URI and TEMPORAL_ADDRESS to this file once ready")
		fs.BoolVar(&watchStdin, "exit-with-stdin", false, "exit when standard input closes (the parent test process died)")
	})
	if err != nil {
		return err
	}
	lock, err := lockDataDir(cfg.DataDir)
	if err != nil {
		return err
	}
	defer lock.release()
	log := obs.NewLogger(os.Stderr, cfg.LogLevel).With("role", "infra")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var emb embeddedServers
	if err := emb.start(cfg, log, true, true); err != nil {
		return err
	}
	defer emb.stop()
	if err := lock.noteServers(&emb, cfg); err != nil {
		return err
	}
	lines := fmt.Sprintf("MONGODB_URI=%s\nTEMPORAL_ADDRESS=%s\n", cfg.MongoURI, cfg.TemporalAddress)
	if envFile != "" {
		if err := writeAtomically(envFile, lines); err != nil {
			return err
		}
	}
	fmt.Print(lines)
	if watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}
	<-ctx.Done()
	return nil
}

func writeAtomically(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
