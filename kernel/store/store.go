// Package store is the platform's storage port, in the platform's own terms:
// documents, the query package's filters, update operations, unique indexes
// and atomic counters. No driver type appears here. Implementations: MongoDB
// (store/mongostore) and an embedded one; store/storetest holds the contract
// suite both must pass.
//
// Tenancy: a Collection from Store.Collection is scoped to the customer found
// in ctx (tenant.Customer): every query gets it added, every insert gets it
// set, and a call without it fails with tenant.ErrMissing. Store.Global gives
// unscoped collections for platform-wide data (customers, signing keys).
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"platform/kernel/query"
)

// Doc is a stored document. Values are string, bool, int64, float64,
// time.Time (UTC), nil, []any and map[string]any (Doc).
type Doc = map[string]any

// CustomerField is the field holding the tenant of a scoped document.
const CustomerField = "customer"

var (
	// ErrNotFound: no document matched (or it belongs to another customer).
	ErrNotFound = errors.New("store: not found")
	// ErrUnavailable wraps failures to reach the store.
	ErrUnavailable = errors.New("store: unavailable")
)

// DuplicateError reports a unique index violation.
type DuplicateError struct {
	Index  string
	Fields []string
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("store: duplicate value for %s", strings.Join(e.Fields, ", "))
}

// IsDuplicate reports whether err is a unique index violation.
func IsDuplicate(err error) bool {
	var d *DuplicateError
	return errors.As(err, &d)
}

// SortField orders results by one dotted path.
type SortField struct {
	Field string
	Desc  bool
}

// FindOptions select, order, page and project documents.
type FindOptions struct {
	Filter query.Expr // nil: every document
	Sort   []SortField
	Skip   int64
	Limit  int64    // 0: no limit
	Fields []string // projection; nil: whole documents; _id is always kept
}

// Update is a set of update operations applied atomically to one document.
// Paths may be dotted.
type Update struct {
	Set   Doc
	Unset []string
	Inc   map[string]any // int64 or float64 increments; missing fields start at 0
	Push  map[string]any // appends one value to the array at the path
	Pull  map[string]any // removes every element equal to the value
	// SetOnInsert applies only when Upsert inserts a new document.
	SetOnInsert Doc
}

// Index declares an index on a collection. Unique indexes of scoped
// collections are unique per customer.
type Index struct {
	Name   string
	Keys   []SortField
	Unique bool
	// Sparse unique indexes ignore documents missing the first key.
	Sparse bool
}

// Collection is one collection of documents.
type Collection interface {
	Insert(ctx context.Context, doc Doc) error
	InsertMany(ctx context.Context, docs []Doc) error
	// Get returns the document with that _id (projected to fields if any).
	Get(ctx context.Context, id string, fields ...string) (Doc, error)
	Find(ctx context.Context, opts FindOptions) ([]Doc, error)
	// Count counts every matching document: time linear in what it reads.
	Count(ctx context.Context, filter query.Expr) (int64, error)
	// CountAll is the number of documents of the caller (of the whole
	// collection, when global), read from a counter the store keeps with
	// every write that adds or removes documents: constant time. See
	// docs/counts.md for how exact each implementation keeps it.
	CountAll(ctx context.Context) (int64, error)
	// CountUpTo counts the matching documents, but stops at limit: it
	// answers min(matches, limit), so its cost is bounded by limit rather
	// than by the collection. limit must be positive.
	CountUpTo(ctx context.Context, filter query.Expr, limit int64) (int64, error)
	// Update atomically applies u to the first document matching filter and
	// returns it as it is afterwards (MongoDB's findOneAndUpdate). A filter
	// beyond _id makes it conditional. ErrNotFound when nothing matched.
	Update(ctx context.Context, filter query.Expr, u Update) (Doc, error)
	// Upsert is Update that inserts {_id: id} plus SetOnInsert when no
	// document has that id; the basis of atomic counters.
	Upsert(ctx context.Context, id string, u Update) (Doc, error)
	UpdateMany(ctx context.Context, filter query.Expr, u Update) (int64, error)
	// Replace swaps the whole document with that _id, keeping its customer.
	Replace(ctx context.Context, id string, doc Doc) error
	Delete(ctx context.Context, filter query.Expr) (int64, error)
}

// Store opens collections and manages their indexes.
type Store interface {
	// Collection is scoped to the customer of ctx.
	Collection(name string) Collection
	// Global is not scoped: for data that belongs to no customer.
	Global(name string) Collection
	EnsureIndexes(ctx context.Context, collection string, scoped bool, idx []Index) error
	// Ping proves the store can read and write: it writes a tiny health
	// record, so a store that answers reads but cannot write fails it.
	// Cheap, but a write: callers rate-limit it.
	Ping(ctx context.Context) error
	Close(ctx context.Context) error
	// Kind names the implementation ("mongodb", "sqlite") for logs and /readyz.
	Kind() string
}

// WritePoint names a step of a write, where a fault-injection test acts
// (see store/storetest). A store without transactions passes only some.
type WritePoint int

const (
	WriteStart      WritePoint = iota // nothing done yet
	WriteBegun                        // the transaction's BEGIN ran
	WriteWork                         // one statement of the write ran
	WriteCommit                       // about to commit
	WriteCommitted                    // the commit (or the one operation) ran
	WriteDone                         // it took effect; about to answer
	WriteRolledBack                   // the ROLLBACK of a write that did not commit ran
)

// WriteHook is called at each point of a write with the context the step
// ran with and its error, and returns the error the store goes on with; at
// WriteDone its answer is ignored (nothing can undo a commit). It may
// panic. For tests only: stores take it through a SetWriteHook method.
type WriteHook func(p WritePoint, ctx context.Context, err error) error
