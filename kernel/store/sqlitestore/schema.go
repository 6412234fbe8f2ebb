package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"platform/kernel/store"
)

// The catalog: which collections exist, the shapes of their documents and
// the declared fields of each index (to name them in a DuplicateError);
// platform_health holds the one row Ping writes.
const catalogSQL = `
CREATE TABLE IF NOT EXISTS platform_collections (
	name TEXT PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS platform_shapes (
	collection TEXT NOT NULL,
	path TEXT NOT NULL,
	flags INTEGER NOT NULL,
	PRIMARY KEY (collection, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS platform_indexes (
	sqlname TEXT PRIMARY KEY,
	collection TEXT NOT NULL,
	name TEXT NOT NULL,
	fields TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS platform_health (
	id INTEGER PRIMARY KEY,
	checked TEXT NOT NULL
);`

func (s *Store) createCatalog(ctx context.Context) error {
	_, err := s.wconn.ExecContext(ctx, catalogSQL)
	return mapError(ctx, err, nil)
}

// table is one collection's table. Documents are ordered by rid, their
// insertion order, MongoDB's natural order; the customer and _id columns
// have no declared type so that SQLite never converts what is compared
// with them (MongoDB's "5" is not 5).
type table struct {
	name  string
	ident string

	shapesPtr atomic.Pointer[shapes]
	// gen counts shape changes; a read compiled with older shapes retries.
	gen atomic.Uint64

	mu      sync.RWMutex
	indexes map[string]store.DuplicateError // SQL index name -> declaration
}

func (t *table) shapes() shapes { return *t.shapesPtr.Load() }

func (t *table) publishShapes(sh shapes) {
	t.shapesPtr.Store(&sh)
	t.gen.Add(1)
}

func tableIdent(collection string) string {
	return `"c_` + strings.ReplaceAll(collection, `"`, `""`) + `"`
}

// indexName names an index in the schema; names with '#' are internal.
func indexName(collection, index string) string { return "c_" + collection + "/" + index }

// table returns the collection's table, creating it on first use.
func (s *Store) table(ctx context.Context, name string) (*table, error) {
	s.mu.Lock()
	t, ok := s.tables[name]
	s.mu.Unlock()
	if ok {
		return t, nil
	}
	if name == "" || strings.ContainsRune(name, 0) {
		return nil, fmt.Errorf("sqlitestore: invalid collection name %q", name)
	}
	t = &table{name: name, ident: tableIdent(name), indexes: map[string]store.DuplicateError{}}
	err := s.write(ctx, nil, func(w *writeTx) error {
		if err := w.createTable(t); err != nil {
			return err
		}
		if err := w.initCounts(t); err != nil {
			return err
		}
		return w.loadTable(t)
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.tables[name]; ok {
		return prev, nil
	}
	s.tables[name] = t
	return t, nil
}

func (w *writeTx) createTable(t *table) error {
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS ` + t.ident + ` (
			rid INTEGER PRIMARY KEY,
			customer NOT NULL,
			id NOT NULL,
			doc TEXT NOT NULL
		)`,
		// _id is unique per collection, across customers, as MongoDB's is.
		`CREATE UNIQUE INDEX IF NOT EXISTS ` + quoteName(indexName(t.name, "#id")) + ` ON ` + t.ident + `(id)`,
		// Lists in natural order: the index's entries are in rid order.
		`CREATE INDEX IF NOT EXISTS ` + quoteName(indexName(t.name, "#customer")) + ` ON ` + t.ident + `(customer)`,
	}
	for _, q := range stmts {
		if _, err := w.conn.ExecContext(w.ctx, q); err != nil {
			return err
		}
	}
	_, err := w.conn.ExecContext(w.ctx, `INSERT OR IGNORE INTO platform_collections(name) VALUES (?)`, t.name)
	return err
}

func (w *writeTx) loadTable(t *table) error {
	sh := shapes{}
	rows, err := w.conn.QueryContext(w.ctx, `SELECT path, flags FROM platform_shapes WHERE collection = ?`, t.name)
	if err != nil {
		return err
	}
	for rows.Next() {
		var p string
		var f uint8
		if err := rows.Scan(&p, &f); err != nil {
			rows.Close()
			return err
		}
		sh[p] = f
	}
	if err := rows.Close(); err != nil {
		return err
	}
	t.publishShapes(sh)
	return w.loadIndexes(t)
}

func (w *writeTx) loadIndexes(t *table) error {
	rows, err := w.conn.QueryContext(w.ctx, `SELECT sqlname, name, fields FROM platform_indexes WHERE collection = ?`, t.name)
	if err != nil {
		return err
	}
	defer rows.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	for rows.Next() {
		var sqlName, name, fields string
		if err := rows.Scan(&sqlName, &name, &fields); err != nil {
			return err
		}
		d := store.DuplicateError{Index: name}
		if err := json.Unmarshal([]byte(fields), &d.Fields); err != nil {
			return fmt.Errorf("sqlitestore: index %s: %w", name, err)
		}
		t.indexes[sqlName] = d
	}
	return rows.Err()
}

// noteShapes records the array and document paths of d before d is
// written, publishing them before the commit: a read whose snapshot
// includes d then sees its collection's shapes change and recompiles. A
// transaction that does not commit puts the previous shapes back, or a
// later document of the same shape would not record them in the file.
func (w *writeTx) noteShapes(t *table, d store.Doc) error {
	found := shapes{}
	shapesOf(d, found)
	cur := t.shapes()
	added := cur.missing(found)
	if len(added) == 0 {
		return nil
	}
	for p, f := range added {
		_, err := w.conn.ExecContext(w.ctx,
			`INSERT INTO platform_shapes(collection, path, flags) VALUES (?, ?, ?)
			 ON CONFLICT(collection, path) DO UPDATE SET flags = excluded.flags`, t.name, p, f)
		if err != nil {
			return err
		}
	}
	w.onAbort(func() { t.publishShapes(cur) })
	t.publishShapes(cur.with(added))
	return nil
}

// EnsureIndexes implements store.Store: it creates the declared indexes
// that are missing and recreates those whose declaration changed. Indexes
// lead with the customer, so unique ones are unique per customer.
func (s *Store) EnsureIndexes(ctx context.Context, collection string, scoped bool, idx []store.Index) error {
	t, err := s.table(ctx, collection)
	if err != nil {
		return err
	}
	return s.write(ctx, t, func(w *writeTx) error {
		for _, ix := range idx {
			if err := w.ensureIndex(t, ix, scoped); err != nil {
				return err
			}
		}
		return nil
	})
}

func (w *writeTx) ensureIndex(t *table, ix store.Index, scoped bool) error {
	if ix.Name == "" || strings.Contains(ix.Name, "#") || len(ix.Keys) == 0 {
		return fmt.Errorf("sqlitestore: index %q of %s needs a name without '#' and keys", ix.Name, t.name)
	}
	defs, err := indexDefinitions(t, ix, scoped)
	if err != nil {
		return err
	}
	decl := store.DuplicateError{Index: ix.Name}
	for _, k := range ix.Keys {
		decl.Fields = append(decl.Fields, k.Field)
	}
	fields, _ := json.Marshal(decl.Fields)
	for name := range defs {
		w.onAbort(t.declare(name, decl))
	}
	for name, def := range defs {
		if err := w.replaceIndex(name, def); err != nil {
			return err
		}
		_, err := w.conn.ExecContext(w.ctx,
			`INSERT INTO platform_indexes(sqlname, collection, name, fields) VALUES (?, ?, ?, ?)
			 ON CONFLICT(sqlname) DO UPDATE SET name = excluded.name, fields = excluded.fields`,
			name, t.name, ix.Name, string(fields))
		if err != nil {
			return err
		}
	}
	if _, ok := defs[nullIndexName(t, ix)]; !ok {
		return w.dropIndex(nullIndexName(t, ix))
	}
	return nil
}

// declare records the declaration of an index by its SQL name and
// returns what puts the previous one back.
func (t *table) declare(sqlName string, d store.DuplicateError) (undo func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prev, had := t.indexes[sqlName]
	t.indexes[sqlName] = d
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if had {
			t.indexes[sqlName] = prev
		} else {
			delete(t.indexes, sqlName)
		}
	}
}

// replaceIndex creates the index unless an identical one exists.
func (w *writeTx) replaceIndex(name, def string) error {
	var existing sql.NullString
	err := w.conn.QueryRowContext(w.ctx, `SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?`, name).Scan(&existing)
	if err != nil && err != sql.ErrNoRows {
		return err
	}
	if existing.String == def {
		return nil
	}
	if err := w.dropIndex(name); err != nil {
		return err
	}
	_, err = w.conn.ExecContext(w.ctx, def)
	return err
}

func (w *writeTx) dropIndex(name string) error {
	_, err := w.conn.ExecContext(w.ctx, `DROP INDEX IF EXISTS "`+strings.ReplaceAll(name, `"`, `""`)+`"`)
	return err
}

func mainIndexName(t *table, ix store.Index) string { return indexName(t.name, ix.Name) }
func nullIndexName(t *table, ix store.Index) string { return indexName(t.name, ix.Name+"#null") }

// indexDefinitions returns the CREATE INDEX statements of a declaration by
// index name.
//
// Keys are the fields' keys, the very expressions filters and sorts
// compile to, so the planner matches them. A sparse index leaves out the
// documents whose first key is missing or null, with a condition the
// planner sees implied by any comparison on that key. SQLite's unique
// indexes let NULLs repeat while MongoDB's count a missing field as null,
// so a non-sparse unique index gets a companion, unique over the documents
// with a missing key, where missing is a value like any other.
func indexDefinitions(t *table, ix store.Index, scoped bool) (map[string]string, error) {
	keys := make([]string, len(ix.Keys))
	for i, k := range ix.Keys {
		key, ok := keyExpr(k.Field, scoped)
		if !ok {
			return nil, fmt.Errorf("sqlitestore: index %s: cannot index field %q", ix.Name, k.Field)
		}
		keys[i] = key
	}
	unique := ""
	if ix.Unique {
		unique = "UNIQUE "
	}
	cols := make([]string, len(keys))
	for i, k := range keys {
		cols[i] = k + direction(ix.Keys[i].Desc)
	}
	main := "CREATE " + unique + "INDEX " + quoteName(mainIndexName(t, ix)) + " ON " + t.ident +
		"(customer, " + strings.Join(cols, ", ") + ")"
	if ix.Sparse {
		main += " WHERE " + keys[0] + " IS NOT NULL"
	}
	defs := map[string]string{mainIndexName(t, ix): main}
	if ix.Unique && !ix.Sparse {
		defs[nullIndexName(t, ix)] = nullIndexDefinition(t, ix, keys)
	}
	return defs, nil
}

func nullIndexDefinition(t *table, ix store.Index, keys []string) string {
	cols := make([]string, len(keys))
	nulls := make([]string, len(keys))
	for i, k := range keys {
		cols[i] = "ifnull(" + k + ", x'00')"
		nulls[i] = k + " IS NULL"
	}
	return "CREATE UNIQUE INDEX " + quoteName(nullIndexName(t, ix)) + " ON " + t.ident +
		"(customer, " + strings.Join(cols, ", ") + ") WHERE " + strings.Join(nulls, " OR ")
}

func quoteName(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// duplicate turns SQLite's unique violation message into the declaration
// of the index concerned; a violation of no declared index is the _id's.
func (t *table) duplicate(msg string) error {
	if t != nil {
		if _, rest, ok := strings.Cut(msg, "index '"); ok {
			name, _, _ := strings.Cut(rest, "'")
			t.mu.RLock()
			d, ok := t.indexes[name]
			t.mu.RUnlock()
			if ok {
				return &store.DuplicateError{Index: d.Index, Fields: append([]string(nil), d.Fields...)}
			}
		}
	}
	return &store.DuplicateError{Index: "_id", Fields: []string{"_id"}}
}

// Collections lists the collections in the file, for copying them
// elsewhere (platform migrate-store).
func (s *Store) Collections(ctx context.Context) ([]string, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT name FROM platform_collections ORDER BY name`)
	if err != nil {
		return nil, mapError(ctx, err, nil)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, mapError(ctx, err, nil)
		}
		out = append(out, n)
	}
	return out, mapError(ctx, rows.Err(), nil)
}

// RawDoc is a stored document with its customer ("" in global
// collections, where the document may hold a customer field of its own).
type RawDoc struct {
	Customer string
	Doc      store.Doc
}

// Scan returns up to limit documents of a collection, every customer's,
// ordered by _id, starting after afterID; pass the last one's _id to get
// the next batch, "" to start.
func (s *Store) Scan(ctx context.Context, collection, afterID string, limit int) ([]RawDoc, error) {
	t, err := s.table(ctx, collection)
	if err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx,
		`SELECT customer, doc FROM `+t.ident+` WHERE id > ? ORDER BY id LIMIT ?`, afterID, limit)
	if err != nil {
		return nil, mapError(ctx, err, t)
	}
	defer rows.Close()
	var out []RawDoc
	for rows.Next() {
		var r RawDoc
		var text []byte
		if err := rows.Scan(&r.Customer, &text); err != nil {
			return nil, mapError(ctx, err, t)
		}
		if r.Doc, err = decodeDoc(text); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, mapError(ctx, rows.Err(), t)
}
