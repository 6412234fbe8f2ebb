package main

import (
	"context"
	"fmt"

	"platform/config"
	"platform/store"
	"platform/store/mongostore"
	"platform/store/sqlitestore"
)

// openStore opens the configured store: MongoDB (or the embedded FerretDB)
// at cfg.MongoURI, else the embedded SQLite file.
func openStore(ctx context.Context, cfg *config.Config) (store.Store, error) {
	if cfg.MongoURI == "" {
		st, err := sqlitestore.Open(cfg.SQLitePath())
		if err != nil {
			return nil, fmt.Errorf("open the embedded store %s: %w", cfg.SQLitePath(), err)
		}
		return st, nil
	}
	st, err := mongostore.Open(ctx, cfg.MongoURI, cfg.MongoDatabase)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return st, nil
}
