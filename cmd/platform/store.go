package main

import (
	"context"
	"errors"
	"fmt"

	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/store/sqlitestore"
)

// openStore opens the configured store: MongoDB (or the embedded FerretDB)
// at cfg.MongoURI, else the embedded SQLite file.
func openStore(ctx context.Context, cfg *settings.Config) (store.Store, error) {
	if cfg.MongoURI == "" {
		st, err := sqlitestore.Open(cfg.SQLitePath())
		if errors.Is(err, store.ErrCorrupt) {
			return nil, damaged("the embedded store "+cfg.SQLitePath(), err)
		}
		if err != nil {
			return nil, fmt.Errorf("open the embedded store %s: %w", cfg.SQLitePath(), err)
		}
		return st, nil
	}
	st, err := mongostore.Open(ctx, cfg.MongoURI, cfg.MongoDatabase)
	if store.Corrupt(err) { // the embedded FerretDB's SQLite files
		return nil, damaged("the store at "+cfg.MongoURI, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return st, nil
}
