package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"platform/store"
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
}

// write runs fn in a write transaction on t (nil for none), committed
// when fn succeeds.
func (s *Store) write(ctx context.Context, t *table, fn func(w *writeTx) error) error {
	select {
	case s.writeTurn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writeTurn }()
	if _, err := s.wconn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return mapError(ctx, err, t)
	}
	w := &writeTx{ctx: ctx, conn: s.wconn, stmts: &s.writeStmts}
	err := fn(w)
	if err == nil {
		_, err = s.wconn.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		// Also after a failed COMMIT, which leaves the transaction open;
		// not with ctx, which may be what failed.
		_, _ = s.wconn.ExecContext(context.Background(), "ROLLBACK")
		return mapError(ctx, err, t)
	}
	return nil
}

func (w *writeTx) exec(query string, args ...any) (sql.Result, error) {
	st, err := w.stmts.prepared(w.ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return w.conn.ExecContext(w.ctx, query, args...)
	}
	return st.ExecContext(w.ctx, args...)
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
