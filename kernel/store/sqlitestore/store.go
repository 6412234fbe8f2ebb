// Package sqlitestore implements store.Store on one SQLite file (pure Go,
// modernc.org/sqlite): the store of `platform dev` when no MongoDB is
// configured.
//
// Each collection is a table of whole documents as JSON (see codec.go) with
// the customer and _id in columns; declared indexes are expression indexes
// on the documents' fields (see sqlexpr.go), and filters compile to SQL
// that uses them (see compile.go) with MongoDB's results.
//
// Durability: the file is in WAL mode with synchronous=NORMAL. A committed
// write is in the WAL file (the kernel's page cache) before the call
// returns, so killing the process, SIGKILL included, loses nothing; a power
// failure or kernel crash may lose the transactions committed since the
// last checkpoint, without corrupting the file.
//
// Concurrency: one connection writes (SQLite has one writer at a time, and
// queueing in Go is cheaper than SQLite's busy waiting), inside BEGIN
// IMMEDIATE transactions, so conditional updates and counters are atomic;
// a pool of connections reads, concurrently with the writer. One Store at a
// time may open a file (a lock file enforces it): the shapes it caches
// (shapes.go) decide how filters compile.
//
// Cancellation: a write answers nil if and only if it took effect, and
// neither a cancelled context nor a driver error nor a panic leaves the
// writer connection inside a transaction (see write.go).
//
// Where this store knowingly differs from MongoDB:
//   - InsertMany and UpdateMany are all or nothing (MongoDB may stop
//     halfway, leaving the first documents written);
//   - a sparse unique index skips documents whose first key is null as
//     well as those missing it;
//   - a unique index on a field holding arrays compares whole arrays
//     (MongoDB: every element);
//   - $pull removes the elements equal to the value, documents included
//     (MongoDB reads a document there as a condition on the elements);
//   - dates must fall in the years 0 to 9999;
//   - Global(name) and Collection(name) of one name see disjoint documents;
//   - EnsureIndexes never drops an index no longer declared.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"platform/kernel/store"
)

var _ store.Store = (*Store)(nil)

// Store is a store.Store on one SQLite file.
type Store struct {
	path   string
	writer *sql.DB
	// wconn is the writer pool's one connection, held so that statements
	// prepared on it stay prepared; writeTurn serializes its users.
	wconn     *sql.Conn
	writeTurn chan struct{}
	reader    *sql.DB

	mu     sync.Mutex
	tables map[string]*table

	writeStmts stmtCache
	readStmts  stmtCache
	unlock     func()

	hook atomic.Pointer[store.WriteHook] // SetWriteHook
}

// Open opens the database file at path, creating it and its directory if
// needed. One Store at a time may have a file open.
func Open(path string) (*Store, error) {
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlitestore: database path %q may not hold '?' or '#'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	unlock, err := lockFile(path)
	if err != nil {
		return nil, err
	}
	s, err := open(path)
	if err != nil {
		unlock()
		if store.Corrupt(err) {
			return nil, fmt.Errorf("%w: %s: %v", store.ErrCorrupt, path, err)
		}
		return nil, err
	}
	s.unlock = unlock
	return s, nil
}

func open(path string) (*Store, error) {
	writer, err := openPool(path, 1, false)
	if err != nil {
		return nil, err
	}
	readers := max(4, 2*runtime.GOMAXPROCS(0))
	reader, err := openPool(path, readers, true)
	if err != nil {
		writer.Close()
		return nil, err
	}
	wconn, err := writer.Conn(context.Background())
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	s := &Store{path: path, writer: writer, wconn: wconn, writeTurn: make(chan struct{}, 1), reader: reader, tables: map[string]*table{}}
	s.writeStmts.db, s.readStmts.db = wconn, reader
	if err := errors.Join(s.createCatalog(context.Background()), s.createCounts(context.Background())); err != nil {
		s.closePools()
		return nil, err
	}
	return s, nil
}

func openPool(path string, conns int, readOnly bool) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-32000)")
	q.Add("_pragma", "temp_store(MEMORY)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	}
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: open %s: %v", store.ErrUnavailable, path, err)
	}
	return db, nil
}

// SetWriteHook installs h, called at each point of every write (nil:
// none). For fault-injection tests only.
func (s *Store) SetWriteHook(h store.WriteHook) {
	if h == nil {
		s.hook.Store(nil)
		return
	}
	s.hook.Store(&h)
}

// Kind implements store.Store.
func (s *Store) Kind() string { return "sqlite" }

// Ping implements store.Store: a read on the readers, and a write of one
// row through the write path, turn, transaction and commit included.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.reader.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return mapError(ctx, err, nil)
	}
	return s.write(ctx, nil, func(w *writeTx) error {
		_, err := w.exec(`INSERT INTO platform_health(id, checked) VALUES (1, strftime('%Y-%m-%dT%H:%M:%fZ'))
			ON CONFLICT(id) DO UPDATE SET checked = excluded.checked`)
		return err
	})
}

// Close implements store.Store. Closing the last connection checkpoints
// the WAL into the database file.
// The write in progress ends first (or ctx does); later writes fail.
func (s *Store) Close(ctx context.Context) error {
	select {
	case s.writeTurn <- struct{}{}:
		defer s.releaseTurn()
	case <-ctx.Done():
	}
	s.readStmts.close()
	s.writeStmts.close()
	err := s.closePools()
	s.unlock()
	return err
}

func (s *Store) closePools() error {
	var werr error
	if s.wconn != nil { // nil after a failed replaceWriter
		werr = s.wconn.Close()
	}
	return errors.Join(s.reader.Close(), werr, s.writer.Close())
}

// Collection implements store.Store.
func (s *Store) Collection(name string) store.Collection {
	return &collection{s: s, name: name, scoped: true}
}

// Global implements store.Store.
func (s *Store) Global(name string) store.Collection {
	return &collection{s: s, name: name}
}

// Backup writes a consistent copy of the database to destPath (which must
// not exist) while reads and writes go on: it reads one snapshot.
func (s *Store) Backup(ctx context.Context, destPath string) error {
	// The readers are query_only, which VACUUM INTO refuses, and the
	// writer must stay free: a connection of its own.
	db, err := openPool(s.path, 1, false)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "VACUUM INTO ?", destPath)
	return mapError(ctx, err, nil)
}

// stmtCache keeps prepared statements by SQL text: statements differ by
// filter shape only, values being bound, so there are few. Past
// maxCachedStmts, statements run unprepared.
type stmtCache struct {
	db    preparer
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

const maxCachedStmts = 2000

// preparer is a *sql.DB or a *sql.Conn.
type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// prepared returns the cached statement for query, or nil when the cache
// is full.
func (c *stmtCache) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	st, ok := c.stmts[query]
	full := len(c.stmts) >= maxCachedStmts
	c.mu.Unlock()
	if ok || full {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.stmts[query]; ok {
		st.Close()
		return prev, nil
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = st
	return st, nil
}

func (c *stmtCache) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.stmts {
		st.Close()
		delete(c.stmts, q)
	}
}
