package sqlitestore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"platform/kernel/store"
)

// writeTx is a transaction on the one writer connection, begun with BEGIN
// IMMEDIATE, so what it reads cannot change before it commits: conditional
// updates and counters need nothing more. It drives the connection
// directly rather than through sql.Tx, which would prepare every cached
// statement again for each transaction.
type writeTx struct {
	ctx   context.Context
	conn  *sql.Conn
	stmts *stmtCache
	s     *Store
	// undo restores, in reverse order, the in-memory state the
	// transaction changed before its commit (shapes, index declarations).
	undo []func()
}

// write runs fn in a write transaction on t (nil for none), committed
// when fn succeeds. It answers nil if and only if the write took effect,
// and whatever happens (ctx cancelled, a driver error, a panic in fn) the
// writer connection is out of any transaction before the next write's
// turn (see abort).
//
// BEGIN and COMMIT run with a context nothing cancels: once the driver
// sees the context of a running statement end, it reports the
// cancellation whether or not the statement took effect, so a cancellable
// COMMIT could answer an error for a committed write. busy_timeout bounds
// their waits for the file's lock. The statements of fn run with ctx: an
// interrupted one fails fn, and the transaction is rolled back.
func (s *Store) write(ctx context.Context, t *table, fn func(w *writeTx) error) error {
	if err := s.takeTurn(ctx); err != nil {
		return err
	}
	defer s.releaseTurn()
	if err := s.at(store.WriteStart, ctx, ctx.Err()); err != nil {
		return err
	}
	w := &writeTx{ctx: ctx, conn: s.wconn, stmts: &s.writeStmts, s: s}
	committed := false
	defer func() {
		if !committed {
			w.abort() // also while a panic unwinds
		}
	}()
	if err := w.run(fn); err != nil {
		return mapError(ctx, err, t)
	}
	committed = true
	s.at(store.WriteDone, ctx, nil)
	return nil
}

// run begins the transaction, runs fn in it and commits.
func (w *writeTx) run(fn func(w *writeTx) error) error {
	if err := w.control(store.WriteBegun, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	if err := fn(w); err != nil {
		return err
	}
	// A caller gone before the commit changes nothing.
	if err := w.s.at(store.WriteCommit, w.ctx, w.ctx.Err()); err != nil {
		return err
	}
	return w.control(store.WriteCommitted, "COMMIT")
}

// takeTurn waits for the writer connection, opening a new one if the last
// attempt to replace it failed.
func (s *Store) takeTurn(ctx context.Context) error {
	select {
	case s.writeTurn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.wconn == nil {
		if err := s.connectWriter(); err != nil {
			s.releaseTurn()
			return err
		}
	}
	return nil
}

func (s *Store) releaseTurn() { <-s.writeTurn }

// control runs a transaction-control statement to completion (see write).
func (w *writeTx) control(p store.WritePoint, stmt string) error {
	ctx := context.Background()
	_, err := w.conn.ExecContext(ctx, stmt)
	return w.s.at(p, ctx, err)
}

// abort undoes what the transaction changed in memory and makes sure the
// connection is in autocommit mode: an unconditional ROLLBACK, whose "no
// transaction is active" answer means there was none (BEGIN failed, or an
// interrupted statement rolled the transaction back). Any other answer
// leaves the connection's state unknown: it is replaced.
func (w *writeTx) abort() {
	for i := len(w.undo) - 1; i >= 0; i-- {
		w.undo[i]()
	}
	if err := w.control(store.WriteRolledBack, "ROLLBACK"); err != nil && !noTransaction(err) {
		w.s.replaceWriter()
	}
}

// onAbort registers f to restore in-memory state if the transaction does
// not commit.
func (w *writeTx) onAbort(f func()) { w.undo = append(w.undo, f) }

func noTransaction(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_ERROR &&
		strings.Contains(se.Error(), "no transaction is active")
}

// replaceWriter discards the writer connection, never to be reused, with
// the statements prepared on it, and opens a new one. Called during a
// write's turn. If no new connection opens, the next write tries again.
func (s *Store) replaceWriter() {
	s.writeStmts.close()
	_ = s.wconn.Raw(func(any) error { return driver.ErrBadConn })
	s.wconn = nil
	_ = s.connectWriter()
}

// connectWriter takes the writer pool's one connection.
func (s *Store) connectWriter() error {
	conn, err := s.writer.Conn(context.Background())
	if err != nil {
		return fmt.Errorf("%w: writer connection: %v", store.ErrUnavailable, err)
	}
	s.wconn, s.writeStmts.db = conn, conn
	return nil
}

// at passes a write's step to the test hook, if any (SetWriteHook).
func (s *Store) at(p store.WritePoint, ctx context.Context, err error) error {
	if h := s.hook.Load(); h != nil {
		return (*h)(p, ctx, err)
	}
	return err
}

func (w *writeTx) exec(query string, args ...any) (sql.Result, error) {
	st, err := w.stmts.prepared(w.ctx, query)
	if err != nil {
		return nil, err
	}
	var res sql.Result
	if st == nil {
		res, err = w.conn.ExecContext(w.ctx, query, args...)
	} else {
		res, err = st.ExecContext(w.ctx, args...)
	}
	return res, w.s.at(store.WriteWork, w.ctx, err)
}

func (w *writeTx) query(query string, args ...any) (*sql.Rows, error) {
	return w.stmts.query(w.ctx, query, args...)
}

// mapError translates driver errors to the store's: unique violations to
// *store.DuplicateError (t names the indexes), failures of the file or the
// connection to store.ErrUnavailable, and an interrupted statement to the
// context's error.
func mapError(ctx context.Context, err error, t *table) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return t.duplicate(se.Error())
		}
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN,
			sqlite3.SQLITE_FULL, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_READONLY:
			return fmt.Errorf("%w: %v", store.ErrUnavailable, err)
		}
	}
	if errors.Is(err, sql.ErrConnDone) || err.Error() == "sql: database is closed" {
		return fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	return err
}
