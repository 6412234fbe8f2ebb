package mongostore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

var _ store.Collection = (*collection)(nil)

type collection struct {
	s      *Store
	c      *mongo.Collection
	name   string
	scoped bool
}

// scope returns the filter with the caller's customer added, or fails closed.
func (c *collection) scope(ctx context.Context, e query.Expr) (bson.D, error) {
	f, err := compileFilter(e)
	if err != nil {
		return nil, err
	}
	if !c.scoped {
		return f, nil
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	return append(bson.D{{Key: store.CustomerField, Value: cust}}, f...), nil
}

// stamp prepares a document for insertion: an id if it has none (set in
// the caller's map, so it learns the id) and, when scoped, the customer.
func (c *collection) stamp(ctx context.Context, doc store.Doc) (bson.D, error) {
	if _, ok := doc["_id"]; !ok {
		doc["_id"] = store.NewID()
	}
	d := toBSON(doc)
	if !c.scoped {
		return d, nil
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	out := make(bson.D, 0, len(d)+1)
	for _, e := range d {
		if e.Key != store.CustomerField {
			out = append(out, e)
		}
	}
	return append(out, bson.E{Key: store.CustomerField, Value: cust}), nil
}

func (c *collection) Insert(ctx context.Context, doc store.Doc) error {
	d, err := c.stamp(ctx, doc)
	if err != nil {
		return err
	}
	err = c.counted(ctx, func(ctx context.Context) (int64, bool, error) {
		if _, err := c.c.InsertOne(ctx, d); err != nil {
			return 0, refused(err), err
		}
		return 1, true, nil
	})
	return c.s.duplicate(ctx, c, doc, wrap(err))
}

func (c *collection) InsertMany(ctx context.Context, docs []store.Doc) error {
	if len(docs) == 0 {
		return nil
	}
	all := make([]any, 0, len(docs))
	for _, doc := range docs {
		d, err := c.stamp(ctx, doc)
		if err != nil {
			return err
		}
		all = append(all, d)
	}
	err := c.counted(ctx, func(ctx context.Context) (int64, bool, error) {
		_, err := c.c.InsertMany(ctx, all, options.InsertMany().SetOrdered(true))
		n, known := insertedBefore(err, len(all))
		return n, known, err
	})
	return c.s.duplicate(ctx, c, nil, wrap(err))
}

// Get asks for the bare {_id: id} and checks the customer on the answer:
// MongoDB finds it by the _id index either way, and FerretDB answers
// only that form from its primary key (any other filter scans the whole
// collection: 1.3 s at 10,000 large documents).
func (c *collection) Get(ctx context.Context, id string, fields ...string) (store.Doc, error) {
	cust, err := c.customer(ctx)
	if err != nil {
		return nil, err
	}
	o := options.FindOne()
	if len(fields) > 0 && c.scoped {
		fields = append(fields[:len(fields):len(fields)], store.CustomerField)
	}
	if len(fields) > 0 {
		o.SetProjection(projection(fields))
	}
	var m bson.M
	if err := c.c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}, o).Decode(&m); err != nil {
		return nil, wrap(err)
	}
	if c.scoped && m[store.CustomerField] != cust {
		return nil, store.ErrNotFound
	}
	return c.fromBSON(m), nil
}

// customer is the tenant of ctx for a scoped collection ("" otherwise).
func (c *collection) customer(ctx context.Context) (string, error) {
	if !c.scoped {
		return "", nil
	}
	return tenant.Customer(ctx)
}

func (c *collection) Find(ctx context.Context, fo store.FindOptions) ([]store.Doc, error) {
	if c.s.needsLocalMatch(fo.Filter) {
		return c.findLocal(ctx, fo)
	}
	f, err := c.scope(ctx, fo.Filter)
	if err != nil {
		return nil, err
	}
	o := options.Find()
	if len(fo.Sort) > 0 {
		o.SetSort(sortDoc(fo.Sort))
	}
	if fo.Skip > 0 {
		o.SetSkip(fo.Skip)
	}
	if fo.Limit > 0 {
		o.SetLimit(fo.Limit)
	}
	if len(fo.Fields) > 0 {
		o.SetProjection(projection(fo.Fields))
	}
	cur, err := c.c.Find(ctx, f, o)
	if err != nil {
		return nil, wrap(err)
	}
	defer cur.Close(ctx)
	out := []store.Doc{}
	for cur.Next(ctx) {
		var m bson.M
		if err := cur.Decode(&m); err != nil {
			return nil, err
		}
		out = append(out, c.fromBSON(m))
	}
	return out, wrap(cur.Err())
}

func (c *collection) Count(ctx context.Context, e query.Expr) (int64, error) {
	if c.s.needsLocalMatch(e) {
		ids, err := c.idsMatching(ctx, e, 0)
		return int64(len(ids)), err
	}
	f, err := c.scope(ctx, e)
	if err != nil {
		return 0, err
	}
	n, err := c.c.CountDocuments(ctx, f)
	return n, wrap(err)
}

func (c *collection) Update(ctx context.Context, e query.Expr, u store.Update) (store.Doc, error) {
	if err := c.checkUpdate(u); err != nil {
		return nil, err
	}
	unlock, err := c.s.lockWrites(ctx, c.name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	e, err = c.serverable(ctx, e, 1)
	if err != nil {
		return nil, err
	}
	f, err := c.scope(ctx, e)
	if err != nil {
		return nil, err
	}
	upd := updateDoc(u, false)
	if len(upd) == 0 {
		return c.findOne(ctx, f)
	}
	var m bson.M
	err = c.s.write(ctx, func(ctx context.Context) error {
		return c.c.FindOneAndUpdate(ctx, f, upd, options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&m)
	})
	if err != nil {
		return nil, c.s.duplicate(ctx, c, u.Set, wrap(err))
	}
	return c.fromBSON(m), nil
}

func (c *collection) Upsert(ctx context.Context, id string, u store.Update) (store.Doc, error) {
	if err := c.checkUpdate(u); err != nil {
		return nil, err
	}
	unlock, err := c.s.lockWrites(ctx, c.name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Two upserts of a new id can race to insert it; the loser retries as an update.
	for attempt := 0; ; attempt++ {
		doc, err := c.upsertOnce(ctx, id, u)
		var dup *store.DuplicateError
		if errors.As(err, &dup) && dup.Index == "_id" && attempt < 3 {
			continue
		}
		return doc, err
	}
}

func (c *collection) upsertOnce(ctx context.Context, id string, u store.Update) (store.Doc, error) {
	f, err := c.scope(ctx, query.ID(id))
	if err != nil {
		return nil, err
	}
	if c.scoped {
		cust, _ := tenant.Customer(ctx)
		ins := store.Doc{store.CustomerField: cust}
		for k, v := range u.SetOnInsert {
			ins[k] = v
		}
		u.SetOnInsert = ins // a copy: callers may share their Update
	}
	// findAndModify as a command: its answer says whether it inserted,
	// which the document counter needs (FindOneAndUpdate hides that).
	cmd := bson.D{{Key: "findAndModify", Value: c.name}, {Key: "query", Value: f},
		{Key: "update", Value: updateDoc(u, true)}, {Key: "new", Value: true}, {Key: "upsert", Value: true}}
	var res upsertAnswer
	err = c.counted(ctx, func(ctx context.Context) (int64, bool, error) {
		if err := c.s.db.RunCommand(ctx, cmd).Decode(&res); err != nil {
			return 0, refused(err), err
		}
		if res.Value == nil {
			return 0, false, errors.New("mongostore: upsert answered no document")
		}
		return res.inserted(), true, nil
	})
	if err != nil {
		return nil, c.s.duplicate(ctx, c, upsertedValues(id, u), wrap(err))
	}
	return c.fromBSON(res.Value), nil
}

func (c *collection) UpdateMany(ctx context.Context, e query.Expr, u store.Update) (int64, error) {
	if err := c.checkUpdate(u); err != nil {
		return 0, err
	}
	unlock, err := c.s.lockWrites(ctx, c.name)
	if err != nil {
		return 0, err
	}
	defer unlock()
	e, err = c.serverable(ctx, e, 0)
	if err != nil {
		return 0, err
	}
	f, err := c.scope(ctx, e)
	if err != nil {
		return 0, err
	}
	upd := updateDoc(u, false)
	if len(upd) == 0 {
		return c.c.CountDocuments(ctx, f)
	}
	var matched int64
	err = c.s.write(ctx, func(ctx context.Context) error {
		r, err := c.c.UpdateMany(ctx, f, upd)
		if err == nil {
			matched = r.MatchedCount
		}
		return err
	})
	if err != nil {
		return 0, c.s.duplicate(ctx, c, u.Set, wrap(err))
	}
	return matched, nil
}

func (c *collection) Replace(ctx context.Context, id string, doc store.Doc) error {
	unlock, err := c.s.lockWrites(ctx, c.name)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := c.scope(ctx, query.ID(id))
	if err != nil {
		return err
	}
	d, err := c.stamp(ctx, withID(doc, id))
	if err != nil {
		return err
	}
	var matched int64
	err = c.s.write(ctx, func(ctx context.Context) error {
		r, err := c.c.ReplaceOne(ctx, f, d)
		if err == nil {
			matched = r.MatchedCount
		}
		return err
	})
	if err != nil {
		return c.s.duplicate(ctx, c, doc, wrap(err))
	}
	if matched == 0 {
		return store.ErrNotFound
	}
	return nil
}

func (c *collection) Delete(ctx context.Context, e query.Expr) (int64, error) {
	unlock, err := c.s.lockWrites(ctx, c.name)
	if err != nil {
		return 0, err
	}
	defer unlock()
	e, err = c.serverable(ctx, e, 0)
	if err != nil {
		return 0, err
	}
	f, err := c.scope(ctx, e)
	if err != nil {
		return 0, err
	}
	var deleted int64
	err = c.counted(ctx, func(ctx context.Context) (int64, bool, error) {
		r, err := c.c.DeleteMany(ctx, f)
		if err != nil {
			return 0, false, err // some may be deleted: the counter is recounted
		}
		deleted = r.DeletedCount
		return -deleted, true, nil
	})
	if err != nil {
		return 0, wrap(err)
	}
	return deleted, nil
}

func (c *collection) findOne(ctx context.Context, f bson.D) (store.Doc, error) {
	var m bson.M
	if err := c.c.FindOne(ctx, f).Decode(&m); err != nil {
		return nil, wrap(err)
	}
	return c.fromBSON(m), nil
}

func (c *collection) fromBSON(m bson.M) store.Doc {
	d := fromBSON(m)
	if c.scoped {
		delete(d, store.CustomerField)
	}
	return d
}

func withID(doc store.Doc, id string) store.Doc {
	out := make(store.Doc, len(doc)+1)
	for k, v := range doc {
		out[k] = v
	}
	out["_id"] = id
	return out
}

func projection(fields []string) bson.D {
	p := bson.D{{Key: "_id", Value: 1}}
	for _, f := range fields {
		if f != "_id" {
			p = append(p, bson.E{Key: f, Value: 1})
		}
	}
	return p
}

func sortDoc(sf []store.SortField) bson.D {
	d := bson.D{}
	for _, s := range sf {
		dir := 1
		if s.Desc {
			dir = -1
		}
		d = append(d, bson.E{Key: s.Field, Value: dir})
	}
	return d
}

func updateDoc(u store.Update, upsert bool) bson.D {
	d := bson.D{}
	add := func(op string, m map[string]any) {
		if len(m) > 0 {
			d = append(d, bson.E{Key: op, Value: toBSON(m)})
		}
	}
	add("$set", u.Set)
	if len(u.Unset) > 0 {
		un := bson.D{}
		for _, f := range u.Unset {
			un = append(un, bson.E{Key: f, Value: ""})
		}
		d = append(d, bson.E{Key: "$unset", Value: un})
	}
	add("$inc", u.Inc)
	add("$push", u.Push)
	add("$pull", u.Pull)
	if upsert {
		add("$setOnInsert", u.SetOnInsert)
	}
	return d
}

// toBSON keeps map keys in a stable order and times in UTC milliseconds,
// the precision BSON dates have.
func toBSON(m map[string]any) bson.D {
	d := make(bson.D, 0, len(m))
	for k, v := range m {
		d = append(d, bson.E{Key: k, Value: toBSONValue(v)})
	}
	return d
}

func toBSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		// Nested keys are data (a step's settings, a filter stored as a
		// value): escape what the wire protocol reserves.
		d := make(bson.D, 0, len(x))
		for k, e := range x {
			d = append(d, bson.E{Key: escapeKey(k), Value: toBSONValue(e)})
		}
		return d
	case []any:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = toBSONValue(e)
		}
		return out
	case []string:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case time.Time:
		return x.UTC().Truncate(time.Millisecond)
	case int:
		return int64(x)
	}
	return v
}

func fromBSON(m bson.M) store.Doc {
	out := make(store.Doc, len(m))
	for k, v := range m {
		out[k] = fromBSONValue(v)
	}
	return out
}

func fromBSONValue(v any) any {
	switch x := v.(type) {
	case bson.M:
		out := make(store.Doc, len(x))
		for k, e := range x {
			out[unescapeKey(k)] = fromBSONValue(e)
		}
		return out
	case bson.D:
		out := make(store.Doc, len(x))
		for _, e := range x {
			out[unescapeKey(e.Key)] = fromBSONValue(e.Value)
		}
		return out
	case bson.A:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromBSONValue(e)
		}
		return out
	case bson.DateTime:
		return x.Time().UTC()
	case int32:
		return int64(x)
	case bson.ObjectID:
		return x.Hex()
	case bson.Null:
		return nil
	}
	return v
}

// checkUpdate refuses updates that would move a scoped document to another
// customer or change its id.
func (c *collection) checkUpdate(u store.Update) error {
	paths := make([]string, 0, 8)
	for _, m := range []map[string]any{u.Set, u.Inc, u.Push, u.Pull, u.SetOnInsert} {
		for k := range m {
			paths = append(paths, k)
		}
	}
	paths = append(paths, u.Unset...)
	for _, p := range paths {
		head, _, _ := strings.Cut(p, ".")
		if head == "_id" || (c.scoped && head == store.CustomerField) {
			return fmt.Errorf("store: update of %q refused", p)
		}
	}
	return nil
}

func upsertedValues(id string, u store.Update) store.Doc {
	d := store.Doc{"_id": id}
	for _, m := range []store.Doc{u.SetOnInsert, u.Set} {
		for k, v := range m {
			d[k] = v
		}
	}
	return d
}

// upsertAnswer is the answer of a findAndModify with upsert.
type upsertAnswer struct {
	Value           bson.M `bson:"value"`
	LastErrorObject struct {
		UpdatedExisting bool `bson:"updatedExisting"`
	} `bson:"lastErrorObject"`
}

// inserted is 1 when the upsert inserted its document.
func (a upsertAnswer) inserted() int64 {
	if a.Value == nil || a.LastErrorObject.UpdatedExisting {
		return 0
	}
	return 1
}
