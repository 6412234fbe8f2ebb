package sqlitestore

import (
	"context"
	"fmt"

	"platform/kernel/query"
)

// Document counts (docs/counts.md). platform_counts holds, per collection
// and customer ("" for a global collection), the number of documents; every
// write that adds or removes documents changes it in its own transaction,
// so it is exact whatever happens to the write (a cancelled context, an
// error or a panic roll both back). platform_counted lists the collections
// whose counts exist: a collection made by an older version of the store
// is counted once, when this version first opens it.
const countsSQL = `
CREATE TABLE IF NOT EXISTS platform_counts (
	collection TEXT NOT NULL,
	customer NOT NULL,
	n INTEGER NOT NULL,
	PRIMARY KEY (collection, customer)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS platform_counted (
	collection TEXT PRIMARY KEY
) WITHOUT ROWID;`

func (s *Store) createCounts(ctx context.Context) error {
	_, err := s.wconn.ExecContext(ctx, countsSQL)
	return mapError(ctx, err, nil)
}

// initCounts counts the collection's documents per customer, once in the
// life of the file (in the transaction that creates or first loads it).
func (w *writeTx) initCounts(t *table) error {
	res, err := w.conn.ExecContext(w.ctx, `INSERT OR IGNORE INTO platform_counted(collection) VALUES (?)`, t.name)
	if err != nil {
		return err
	}
	if added, err := res.RowsAffected(); err != nil || added == 0 {
		return err
	}
	if _, err := w.conn.ExecContext(w.ctx, `DELETE FROM platform_counts WHERE collection = ?`, t.name); err != nil {
		return err
	}
	_, err = w.conn.ExecContext(w.ctx, `INSERT INTO platform_counts(collection, customer, n)
		SELECT ?, customer, count(*) FROM `+t.ident+` GROUP BY customer`, t.name)
	return err
}

// addCount changes the customer's count by delta, in the write's
// transaction.
func (w *writeTx) addCount(t *table, customer string, delta int64) error {
	if delta == 0 {
		return nil
	}
	_, err := w.exec(`INSERT INTO platform_counts(collection, customer, n) VALUES (?, ?, ?)
		ON CONFLICT(collection, customer) DO UPDATE SET n = n + excluded.n`, t.name, customer, delta)
	return err
}

// CountAll implements store.Collection: one row read, whatever the size.
func (c *collection) CountAll(ctx context.Context) (int64, error) {
	t, customer, err := c.open(ctx)
	if err != nil {
		return 0, err
	}
	rows, err := c.s.readStmts.query(ctx, `SELECT n FROM platform_counts WHERE collection = ? AND customer = ?`, t.name, customer)
	if err != nil {
		return 0, mapError(ctx, err, t)
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	return n, mapError(ctx, err, t)
}

// CountUpTo implements store.Collection: SQLite stops reading rows once
// the inner LIMIT is reached.
func (c *collection) CountUpTo(ctx context.Context, filter query.Expr, limit int64) (int64, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("sqlitestore: count limit %d must be positive", limit)
	}
	t, customer, err := c.open(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	err = c.compiledRead(ctx, t, func(comp *compiler) (err error) {
		q := `SELECT count(*) FROM (SELECT 1 FROM ` + t.ident + ` WHERE customer = ? AND (` + comp.expr(filter) + `) LIMIT ?)`
		args := append(append([]any{customer}, comp.args...), limit)
		n, err = c.scanCount(ctx, t, q, args)
		return err
	})
	return n, err
}

// Recount counts every collection's documents again and rewrites the
// counts (platform counts repair). The counts are exact on this store, so
// it finds nothing to repair unless the file was edited by hand; it
// answers the number of counts it changed.
func (s *Store) Recount(ctx context.Context) (int64, error) {
	names, err := s.Collections(ctx)
	if err != nil {
		return 0, err
	}
	var changed int64
	for _, name := range names {
		t, err := s.table(ctx, name)
		if err != nil {
			return changed, err
		}
		err = s.write(ctx, t, func(w *writeTx) error {
			n, err := w.recount(t)
			changed += n
			return err
		})
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// recount rewrites the collection's counts from its rows.
func (w *writeTx) recount(t *table) (int64, error) {
	var wrong int64
	err := w.conn.QueryRowContext(w.ctx, `SELECT count(*) FROM
		(SELECT customer, count(*) AS n FROM `+t.ident+` GROUP BY customer) AS actual
		FULL JOIN (SELECT customer, n FROM platform_counts WHERE collection = ?) AS kept USING (customer)
		WHERE ifnull(actual.n, 0) != ifnull(kept.n, 0)`, t.name).Scan(&wrong)
	if err != nil || wrong == 0 {
		return 0, err
	}
	if _, err := w.conn.ExecContext(w.ctx, `DELETE FROM platform_counted WHERE collection = ?`, t.name); err != nil {
		return 0, err
	}
	return wrong, w.initCounts(t)
}
