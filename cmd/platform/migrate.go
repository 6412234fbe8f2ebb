package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // for the Temporal database copy

	"platform/kernel/obs"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/store/sqlitestore"
	"platform/kernel/tenant"
	"platform/modules/config/credentials"
)

// runMigrateStore copies every collection of the embedded SQLite store into
// MongoDB. It is idempotent (records already there are replaced) and
// resumable: progress is kept per collection in the data directory, so a
// stopped run continues where it was. The platform must not be running.
func runMigrateStore(args []string) error {
	var to string
	var batch int
	cfg, err := settings.Load("migrate-store", args, func(fs *flag.FlagSet) {
		fs.StringVar(&to, "to", "", "target MongoDB URI (required)")
		fs.IntVar(&batch, "batch", 500, "documents per batch")
	})
	if err != nil {
		return err
	}
	if to == "" || batch <= 0 {
		return errors.New("--to <MONGODB_URI> is required")
	}
	log := obs.NewLogger(os.Stderr, cfg.LogLevel).With("role", "migrate-store")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	src, err := sqlitestore.Open(cfg.SQLitePath())
	if err != nil {
		return fmt.Errorf("open %s (stop platform dev first): %w", cfg.SQLitePath(), err)
	}
	defer src.Close(context.Background())
	dst, err := mongostore.Open(ctx, to, cfg.MongoDatabase)
	if err != nil {
		return err
	}
	defer dst.Close(context.Background())
	m := &migration{src: src, dst: dst, batch: batch, log: log, progressFile: filepath.Join(cfg.DataDir, "migrate-store.progress.json")}
	return m.run(ctx)
}

type migration struct {
	src          *sqlitestore.Store
	dst          store.Store
	batch        int
	log          interface{ Info(string, ...any) }
	progressFile string
	progress     map[string]string // collection -> last copied _id
}

func (m *migration) run(ctx context.Context) error {
	m.load()
	colls, err := m.src.Collections(ctx)
	if err != nil {
		return err
	}
	total := 0
	for _, c := range colls {
		n, err := m.copyCollection(ctx, c)
		total += n
		if err != nil {
			return fmt.Errorf("collection %s: %w (run again to resume)", c, err)
		}
	}
	m.log.Info("migration complete", "collections", len(colls), "documents", total)
	fmt.Printf("copied %d documents of %d collections\n", total, len(colls))
	return nil
}

func (m *migration) copyCollection(ctx context.Context, coll string) (int, error) {
	copied := 0
	for {
		docs, err := m.src.Scan(ctx, coll, m.progress[coll], m.batch)
		if err != nil || len(docs) == 0 {
			return copied, err
		}
		for _, d := range docs {
			if err := m.put(ctx, coll, d); err != nil {
				return copied, err
			}
		}
		copied += len(docs)
		m.progress[coll], _ = docs[len(docs)-1].Doc["_id"].(string)
		if err := m.save(); err != nil {
			return copied, err
		}
		m.log.Info("copying", "collection", coll, "documents", copied, "lastId", m.progress[coll])
	}
}

// put writes one document for its customer, replacing an earlier copy.
func (m *migration) put(ctx context.Context, coll string, d sqlitestore.RawDoc) error {
	c := m.dst.Global(coll)
	if d.Customer != "" {
		ctx = tenant.WithCustomer(ctx, d.Customer)
		c = m.dst.Collection(coll)
	}
	id, _ := d.Doc["_id"].(string)
	err := c.Replace(ctx, id, d.Doc)
	if errors.Is(err, store.ErrNotFound) {
		err = c.Insert(ctx, d.Doc)
	}
	return err
}

func (m *migration) load() {
	m.progress = map[string]string{}
	if b, err := os.ReadFile(m.progressFile); err == nil {
		_ = json.Unmarshal(b, &m.progress)
	}
}

func (m *migration) save() error {
	b, _ := json.Marshal(m.progress)
	return writeAtomically(m.progressFile, string(b))
}

// runBackup copies the data directory's state (store and Temporal) into a
// new directory while the platform runs: SQLite's VACUUM INTO takes a
// consistent snapshot of each database without stopping writers.
func runBackup(args []string) error {
	var to string
	cfg, err := settings.Load("backup", args, func(fs *flag.FlagSet) {
		fs.StringVar(&to, "to", "", "directory to create for the backup (required)")
	})
	if err != nil {
		return err
	}
	if to == "" {
		return errors.New("--to <directory> is required")
	}
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("%s exists; name a new directory", to)
	}
	if err := os.MkdirAll(filepath.Join(to, "store"), 0o750); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(to, "temporal"), 0o750); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if cfg.UsesEmbeddedSQLite() {
		if _, err := runAdmin(ctx, cfg, adminRequest{Cmd: "backup", Name: filepath.Join(to, "store", "platform.db")}); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	tdb := filepath.Join(cfg.DataDir, "temporal", "temporal.db")
	if _, err := os.Stat(tdb); err == nil {
		if err := vacuumInto(ctx, tdb, filepath.Join(to, "temporal", "temporal.db")); err != nil {
			return fmt.Errorf("temporal: %w", err)
		}
	}
	// The credential master key of the embedded store: without it the
	// backup's credentials cannot be decrypted.
	if key, err := os.ReadFile(credentials.MasterKeyPath(cfg)); err == nil {
		if err := os.WriteFile(filepath.Join(to, credentials.MasterKeyFile), key, 0o600); err != nil {
			return fmt.Errorf("master key: %w", err)
		}
	}
	fmt.Printf("backup written to %s (start from it with --data %s)\n", to, to)
	return nil
}

func vacuumInto(ctx context.Context, src, dst string) error {
	db, err := sql.Open("sqlite", "file:"+src+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "VACUUM INTO ?", dst)
	return err
}
