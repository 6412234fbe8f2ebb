// Command ferretdb serves FerretDB 1.24 as its own process, on PostgreSQL,
// for `make cluster`. It is FerretDB's embeddable package behind the
// environment variables of FerretDB's own command and image (the ones
// docker-compose.yml sets), because that command, built from the module
// proxy rather than from FerretDB's repository, stops at start-up for want
// of the version file its release build writes.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}

func run() error {
	level := slog.LevelInfo
	if err := level.UnmarshalText([]byte(env("FERRETDB_LOG_LEVEL", "info"))); err != nil {
		return fmt.Errorf("FERRETDB_LOG_LEVEL: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: env("FERRETDB_LISTEN_ADDR", "127.0.0.1:27017")},
		Logger:        log,
		Handler:       env("FERRETDB_HANDLER", "postgresql"),
		PostgreSQLURL: env("FERRETDB_POSTGRESQL_URL", "postgres://127.0.0.1:5432/ferretdb"),
		SQLiteURL:     env("FERRETDB_SQLITE_URL", "file:data/"),
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log.Info("FerretDB listening", "uri", f.MongoDBURI())
	return f.Run(ctx)
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
