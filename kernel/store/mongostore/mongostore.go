// Package mongostore implements store.Store on MongoDB (and MongoDB-wire
// servers such as FerretDB). It is the only package that imports the driver.
package mongostore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"platform/kernel/query"
	"platform/kernel/store"
)

var _ store.Store = (*Store)(nil)

// Store is a store.Store backed by one MongoDB database.
type Store struct {
	client *mongo.Client
	db     *mongo.Database

	mu      sync.RWMutex
	indexes map[string]map[string][]string // collection -> index name -> fields
	unique  map[string]map[string][]string // the unique ones

	// ferret is set on FerretDB, whose findAndModify and updates are a read
	// and a write without isolation (measured: 40 concurrent $inc of one
	// counter ended at 3). Updates are then serialized per collection in
	// this process; FerretDB is only the single-process embedded store.
	ferret bool
	locks  sync.Map // collection -> chan struct{} (see lockWrites)

	hook atomic.Pointer[store.WriteHook] // SetWriteHook
}

// Open connects to uri and uses database db.
func Open(ctx context.Context, uri, db string) (*Store, error) {
	opts := options.Client().ApplyURI(uri).
		SetBSONOptions(&options.BSONOptions{DefaultDocumentM: true}).
		SetServerSelectionTimeout(10 * time.Second).
		SetConnectTimeout(5 * time.Second).
		SetMaxPoolSize(200)
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	s := &Store{client: client, db: client.Database(db), indexes: map[string]map[string][]string{}, unique: map[string]map[string][]string{}}
	if err := s.reach(ctx); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, err
	}
	if s.ferret, err = isFerretDB(ctx, client); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, err
	}
	return s, nil
}

// sparse skips documents without the indexed field. A scoped index leads
// with the customer, which every document has, so MongoDB's sparse option
// would skip nothing: a partial filter on the field does it. FerretDB lacks
// partial indexes but ignores missing fields in unique indexes anyway.
func (s *Store) sparse(o *options.IndexOptionsBuilder, scoped bool, ix store.Index) {
	if !scoped || s.ferret || len(ix.Keys) == 0 {
		o.SetSparse(true)
		return
	}
	o.SetPartialFilterExpression(bson.D{{Key: ix.Keys[0].Field, Value: bson.D{{Key: "$exists", Value: true}}}})
}

// isFerretDB asks the server what it is. A failure is an error, not a
// "no": guessing MongoDB on a transient failure would give FerretDB
// partial indexes and unserialized updates.
func isFerretDB(ctx context.Context, c *mongo.Client) (bool, error) {
	var info bson.M
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return false, fmt.Errorf("buildInfo: %w", wrap(err))
	}
	_, ok := info["ferretdbVersion"]
	return ok, nil
}

// Kind implements store.Store.
func (s *Store) Kind() string { return "mongodb" }

// HealthCollection holds the one document Ping writes.
const HealthCollection = "platform_health"

// Ping implements store.Store: the primary answers, and takes a write of
// the health document through the write path.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.reach(ctx); err != nil {
		return err
	}
	_, err := s.Global(HealthCollection).Upsert(ctx, "probe", store.Update{Set: store.Doc{"checkedAt": time.Now().UTC()}})
	if err != nil {
		return fmt.Errorf("%w: health write: %v", store.ErrUnavailable, err)
	}
	return nil
}

// reach checks the primary answers.
func (s *Store) reach(ctx context.Context) error {
	if err := s.client.Ping(ctx, readpref.Primary()); err != nil {
		return fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	return nil
}

// Close disconnects.
func (s *Store) Close(ctx context.Context) error { return s.client.Disconnect(ctx) }

// DropDatabase removes the whole database (tests use one database each).
func (s *Store) DropDatabase(ctx context.Context) error { return s.db.Drop(ctx) }

// Collection implements store.Store.
func (s *Store) Collection(name string) store.Collection {
	return &collection{s: s, c: s.db.Collection(name), name: name, scoped: true}
}

// Global implements store.Store.
func (s *Store) Global(name string) store.Collection {
	return &collection{s: s, c: s.db.Collection(name), name: name}
}

// EnsureIndexes implements store.Store. Indexes of scoped collections lead
// with the customer, so uniqueness is per customer and every scoped query
// can use them.
func (s *Store) EnsureIndexes(ctx context.Context, coll string, scoped bool, idx []store.Index) error {
	var models []mongo.IndexModel
	names, unique := map[string][]string{}, map[string][]string{}
	for _, ix := range idx {
		keys := bson.D{}
		if scoped {
			keys = append(keys, bson.E{Key: store.CustomerField, Value: 1})
		}
		var fields []string
		for _, k := range ix.Keys {
			dir := 1
			if k.Desc {
				dir = -1
			}
			keys = append(keys, bson.E{Key: k.Field, Value: dir})
			fields = append(fields, k.Field)
		}
		o := options.Index().SetName(ix.Name)
		if ix.Unique {
			o.SetUnique(true)
			unique[ix.Name] = fields
		}
		if ix.Sparse {
			s.sparse(o, scoped, ix)
		}
		models = append(models, mongo.IndexModel{Keys: keys, Options: o})
		names[ix.Name] = fields
	}
	if err := s.createMissing(ctx, coll, idx, models); err != nil {
		return err
	}
	// Only now: the declarations name the indexes that exist.
	s.mu.Lock()
	s.indexes[coll], s.unique[coll] = names, unique
	s.mu.Unlock()
	return nil
}

// createMissing creates the declared indexes that do not exist yet. Other
// processes may create the same ones at the same moment (replicas starting
// together): when the creation fails, the indexes are listed again, and if
// another process made them all, the work is done. FerretDB answers such a
// collision by closing the connection, so the list is retried a few times.
func (s *Store) createMissing(ctx context.Context, coll string, idx []store.Index, models []mongo.IndexModel) error {
	todo, err := s.missing(ctx, coll, idx, models)
	if err != nil || len(todo) == 0 {
		return err
	}
	_, err = s.db.Collection(coll).Indexes().CreateMany(ctx, todo)
	for attempt := 0; err != nil && attempt < 3 && ctx.Err() == nil; attempt++ {
		time.Sleep(time.Duration(100*(attempt+1)) * time.Millisecond)
		left, lerr := s.missing(ctx, coll, idx, models)
		if lerr == nil && len(left) == 0 {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("indexes of %s: %w", coll, wrap(err))
	}
	return nil
}

// missing drops the indexes that exist already: re-creating an existing
// index is a no-op on MongoDB but has crashed FerretDB 1.24's connection.
func (s *Store) missing(ctx context.Context, coll string, idx []store.Index, models []mongo.IndexModel) ([]mongo.IndexModel, error) {
	specs, err := s.db.Collection(coll).Indexes().ListSpecifications(ctx)
	if err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", coll, wrap(err))
	}
	have := map[string]bool{}
	for _, sp := range specs {
		have[sp.Name] = true
	}
	var out []mongo.IndexModel
	for i, m := range models {
		if !have[idx[i].Name] {
			out = append(out, m)
		}
	}
	return out, nil
}

// duplicate maps a unique violation to a DuplicateError naming the index's
// fields. MongoDB names the index in its message; FerretDB does not (and
// reports violations by updates as internal errors), so there the index is
// found by looking for a document that holds the same values.
func (s *Store) duplicate(ctx context.Context, c *collection, doc map[string]any, err error) error {
	if err == nil || !isDuplicateErr(err) {
		return err
	}
	s.mu.RLock()
	idx := s.indexes[c.name]
	s.mu.RUnlock()
	if m := indexNameRE.FindStringSubmatch(err.Error()); m != nil {
		if fields, ok := idx[m[1]]; ok {
			return &store.DuplicateError{Index: m[1], Fields: fields}
		}
		if m[1] == "_id_" {
			return &store.DuplicateError{Index: "_id", Fields: []string{"_id"}}
		}
	}
	for name, fields := range s.uniqueIndexes(c.name) {
		if doc != nil && c.holder(ctx, doc, fields) {
			return &store.DuplicateError{Index: name, Fields: fields}
		}
	}
	return &store.DuplicateError{Index: "_id", Fields: []string{"_id"}}
}

var indexNameRE = regexp.MustCompile(`index: (\S+) dup key`)

func isDuplicateErr(err error) bool {
	return mongo.IsDuplicateKeyError(err) || strings.Contains(err.Error(), "UNIQUE constraint failed")
}

func (s *Store) uniqueIndexes(coll string) map[string][]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := map[string][]string{}
	for name, fields := range s.unique[coll] {
		out[name] = fields
	}
	return out
}

// holder reports whether another document of the caller holds doc's values of fields.
func (c *collection) holder(ctx context.Context, doc map[string]any, fields []string) bool {
	var parts []query.Expr
	for _, f := range fields {
		v, ok := doc[f]
		if !ok {
			return false
		}
		parts = append(parts, query.Eq(f, v))
	}
	if id, ok := doc["_id"]; ok {
		parts = append(parts, query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: id}}})
	}
	n, err := c.Count(ctx, query.AllOf(parts...))
	return err == nil && n > 0
}

func wrap(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, mongo.ErrNoDocuments) {
		return store.ErrNotFound
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if mongo.IsNetworkError(err) || mongo.IsTimeout(err) || errors.Is(err, mongo.ErrClientDisconnected) {
		return fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	return err
}

// DatabaseName names the database (benchmarks compare against raw driver calls on it).
func (s *Store) DatabaseName() string { return s.db.Name() }

// FerretDB reports whether the server is FerretDB (tests skip what it cannot store).
func (s *Store) FerretDB() bool { return s.ferret }
