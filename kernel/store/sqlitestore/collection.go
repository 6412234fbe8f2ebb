package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

var _ store.Collection = (*collection)(nil)

// collection is a handle; scoped ones read the customer from each call's
// ctx and keep it in the customer column (and out of the JSON), global
// ones use the customer "".
type collection struct {
	s      *Store
	name   string
	scoped bool
}

// open returns the table and the customer the call is scoped to.
func (c *collection) open(ctx context.Context) (*table, string, error) {
	customer := ""
	if c.scoped {
		var err error
		if customer, err = tenant.Customer(ctx); err != nil {
			return nil, "", err
		}
	}
	t, err := c.s.table(ctx, c.name)
	return t, customer, err
}

// prepareDoc normalizes a document for storage and returns its _id,
// assigning a new one (also in doc, so the caller learns it) when absent.
func (c *collection) prepareDoc(doc store.Doc) (store.Doc, string, error) {
	if doc == nil {
		return nil, "", fmt.Errorf("sqlitestore: nil document")
	}
	if _, ok := doc["_id"]; !ok {
		doc["_id"] = store.NewID()
	}
	id, ok := doc["_id"].(string)
	if !ok || id == "" {
		return nil, "", fmt.Errorf("sqlitestore: _id must be a non-empty string, not %T", doc["_id"])
	}
	d, err := normalizeMap(doc)
	if err != nil {
		return nil, "", fmt.Errorf("sqlitestore: %w", err)
	}
	if c.scoped {
		delete(d, store.CustomerField)
	}
	return d, id, nil
}

func (c *collection) Insert(ctx context.Context, doc store.Doc) error {
	return c.InsertMany(ctx, []store.Doc{doc})
}

// InsertMany inserts all documents or, on any error, none.
func (c *collection) InsertMany(ctx context.Context, docs []store.Doc) error {
	t, customer, err := c.open(ctx)
	if err != nil {
		return err
	}
	type row struct {
		id  string
		doc store.Doc
	}
	rows := make([]row, len(docs))
	for i, doc := range docs {
		if rows[i].doc, rows[i].id, err = c.prepareDoc(doc); err != nil {
			return err
		}
	}
	return c.s.write(ctx, t, func(w *writeTx) error {
		for _, r := range rows {
			if err := w.insert(t, customer, r.id, r.doc); err != nil {
				return err
			}
		}
		return w.addCount(t, customer, int64(len(rows)))
	})
}

func (w *writeTx) insert(t *table, customer, id string, d store.Doc) error {
	if err := w.noteShapes(t, d); err != nil {
		return err
	}
	_, err := w.exec(`INSERT INTO `+t.ident+`(customer, id, doc) VALUES (?, ?, ?)`, customer, id, encodeDoc(d))
	return err
}

func (c *collection) Get(ctx context.Context, id string, fields ...string) (store.Doc, error) {
	t, customer, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	docs, err := c.s.readDocs(ctx, t, fmt.Sprintf(getQuery, t.ident), customer, id)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, store.ErrNotFound
	}
	return project(docs[0], fields), nil
}

func (c *collection) Find(ctx context.Context, opts store.FindOptions) ([]store.Doc, error) {
	t, customer, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	if opts.Skip < 0 {
		return nil, fmt.Errorf("sqlitestore: negative skip %d", opts.Skip)
	}
	limit := opts.Limit
	if limit < 0 {
		limit = -limit // MongoDB reads a negative limit as a single batch of that size
	}
	if limit == 0 {
		limit = -1 // SQLite's "no limit"
	}
	opts.Limit = limit
	var docs []store.Doc
	err = c.compiledRead(ctx, t, func(comp *compiler) error {
		q, args := findQuery(t, comp, customer, opts)
		var readErr error
		docs, readErr = c.s.readDocs(ctx, t, q, args...)
		return readErr
	})
	if err != nil {
		return nil, err
	}
	for i, d := range docs {
		docs[i] = project(d, opts.Fields)
	}
	return docs, nil
}

func (c *collection) Count(ctx context.Context, filter query.Expr) (int64, error) {
	t, customer, err := c.open(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	err = c.compiledRead(ctx, t, func(comp *compiler) (err error) {
		q, args := countQuery(t, comp, customer, filter)
		n, err = c.scanCount(ctx, t, q, args)
		return err
	})
	return n, err
}

// findQuery is the SELECT of a Find; opts.Limit is SQLite's (-1: none).
func findQuery(t *table, comp *compiler, customer string, opts store.FindOptions) (string, []any) {
	where := comp.expr(opts.Filter)
	order := comp.orderBy(opts.Sort)
	q := `SELECT doc FROM ` + t.ident + ` WHERE customer = ? AND (` + where + `) ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	return q, append(append([]any{customer}, comp.args...), opts.Limit, opts.Skip)
}

func countQuery(t *table, comp *compiler, customer string, filter query.Expr) (string, []any) {
	q := `SELECT count(*) FROM ` + t.ident + ` WHERE customer = ? AND (` + comp.expr(filter) + `)`
	return q, append([]any{customer}, comp.args...)
}

// getQuery is the SELECT of a Get, with the table's name for %s.
const getQuery = `SELECT doc FROM %s WHERE customer = ? AND id = ?`

// compiledRead runs a read compiled against the collection's shapes, again
// if a write changed them meanwhile: the first document with an array at a
// path changes how filters on that path must be written. (Shapes only
// grow, with the first document of each new form, so retries end.)
func (c *collection) compiledRead(ctx context.Context, t *table, run func(*compiler) error) error {
	for attempt := 0; ; attempt++ {
		gen := t.gen.Load()
		comp := newCompiler(c.scoped, t.shapes())
		err := run(comp)
		comp.release()
		if err != nil || t.gen.Load() == gen || attempt == 10 {
			return err
		}
	}
}

func (s *Store) readDocs(ctx context.Context, t *table, q string, args ...any) ([]store.Doc, error) {
	rows, err := s.readStmts.query(ctx, q, args...)
	if err != nil {
		return nil, mapError(ctx, err, t)
	}
	defer rows.Close()
	docs := []store.Doc{}
	for rows.Next() {
		var text []byte
		if err := rows.Scan(&text); err != nil {
			return nil, mapError(ctx, err, t)
		}
		d, err := decodeDoc(text)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, mapError(ctx, rows.Err(), t)
}

func (c *collection) Update(ctx context.Context, filter query.Expr, u store.Update) (store.Doc, error) {
	t, customer, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	if u, err = normalizeUpdate(u); err != nil {
		return nil, err
	}
	var out store.Doc
	err = c.s.write(ctx, t, func(w *writeTx) error {
		found, err := w.selectDocs(t, c.scoped, customer, filter, 1)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return store.ErrNotFound
		}
		out = found[0].doc
		return w.updateRow(t, found[0], u, c.scoped)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *collection) Upsert(ctx context.Context, id string, u store.Update) (store.Doc, error) {
	t, customer, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	if u, err = normalizeUpdate(u); err != nil {
		return nil, err
	}
	var out store.Doc
	err = c.s.write(ctx, t, func(w *writeTx) error {
		found, err := w.selectDocs(t, c.scoped, customer, query.ID(id), 1)
		if err != nil {
			return err
		}
		if len(found) > 0 {
			out = found[0].doc
			return w.updateRow(t, found[0], u, c.scoped)
		}
		out = store.Doc{"_id": id}
		if err := applyUpdate(out, u, true, c.scoped); err != nil {
			return err
		}
		if err := w.insert(t, customer, id, out); err != nil {
			return err
		}
		return w.addCount(t, customer, 1)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateMany updates every matching document in one transaction: all or
// none (MongoDB's updateMany may stop halfway).
func (c *collection) UpdateMany(ctx context.Context, filter query.Expr, u store.Update) (int64, error) {
	t, customer, err := c.open(ctx)
	if err != nil {
		return 0, err
	}
	if u, err = normalizeUpdate(u); err != nil {
		return 0, err
	}
	var n int64
	err = c.s.write(ctx, t, func(w *writeTx) error {
		found, err := w.selectDocs(t, c.scoped, customer, filter, -1)
		if err != nil {
			return err
		}
		for _, r := range found {
			if err := w.updateRow(t, r, u, c.scoped); err != nil {
				return err
			}
		}
		n = int64(len(found))
		return nil
	})
	return n, err
}

// storedRow is a document read for a change.
type storedRow struct {
	rid int64
	doc store.Doc
}

// selectDocs reads the documents matching filter in natural order; in the
// write transaction no shape can change, so one compilation suffices.
func (w *writeTx) selectDocs(t *table, scoped bool, customer string, filter query.Expr, limit int) ([]storedRow, error) {
	comp := newCompiler(scoped, t.shapes())
	defer comp.release()
	q := `SELECT rid, doc FROM ` + t.ident + ` WHERE customer = ? AND (` + comp.expr(filter) + `) ORDER BY rid LIMIT ?`
	rows, err := w.query(q, append(append([]any{customer}, comp.args...), limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedRow
	for rows.Next() {
		var r storedRow
		var text []byte
		if err := rows.Scan(&r.rid, &text); err != nil {
			return nil, err
		}
		if r.doc, err = decodeDoc(text); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (w *writeTx) updateRow(t *table, r storedRow, u store.Update, scoped bool) error {
	if emptyUpdate(u) {
		return nil
	}
	if err := applyUpdate(r.doc, u, false, scoped); err != nil {
		return err
	}
	return w.rewrite(t, r.rid, r.doc)
}

func (w *writeTx) rewrite(t *table, rid int64, d store.Doc) error {
	if err := w.noteShapes(t, d); err != nil {
		return err
	}
	_, err := w.exec(`UPDATE `+t.ident+` SET doc = ? WHERE rid = ?`, encodeDoc(d), rid)
	return err
}

// Replace swaps the document whole; it keeps its place in natural order.
func (c *collection) Replace(ctx context.Context, id string, doc store.Doc) error {
	t, customer, err := c.open(ctx)
	if err != nil {
		return err
	}
	withID := make(store.Doc, len(doc)+1)
	for k, v := range doc {
		withID[k] = v
	}
	withID["_id"] = id
	d, _, err := c.prepareDoc(withID)
	if err != nil {
		return err
	}
	return c.s.write(ctx, t, func(w *writeTx) error {
		var rid int64
		err := w.conn.QueryRowContext(w.ctx, `SELECT rid FROM `+t.ident+` WHERE customer = ? AND id = ?`, customer, id).Scan(&rid)
		if err == sql.ErrNoRows {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		return w.rewrite(t, rid, d)
	})
}

func (c *collection) Delete(ctx context.Context, filter query.Expr) (int64, error) {
	t, customer, err := c.open(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	err = c.s.write(ctx, t, func(w *writeTx) error {
		comp := newCompiler(c.scoped, t.shapes())
		defer comp.release()
		res, err := w.exec(`DELETE FROM `+t.ident+` WHERE customer = ? AND (`+comp.expr(filter)+`)`,
			append([]any{customer}, comp.args...)...)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		return w.addCount(t, customer, -n)
	})
	return n, err
}

// scanCount runs a query answering one count.
func (c *collection) scanCount(ctx context.Context, t *table, q string, args []any) (n int64, err error) {
	rows, err := c.s.readStmts.query(ctx, q, args...)
	if err != nil {
		return 0, mapError(ctx, err, t)
	}
	defer rows.Close()
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	return n, mapError(ctx, err, t)
}
