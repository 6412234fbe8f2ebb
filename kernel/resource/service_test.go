package resource_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/auth"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/store/sqlitestore"
	"platform/kernel/tenant"
)

// events records what the service emits.
type events struct {
	mu   sync.Mutex
	seen []string
	data []store.Doc
}

func (e *events) Record(_ context.Context, name string, data store.Doc) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, name)
	e.data = append(e.data, data)
	return nil
}

// fixture is a service on a real store with one keyed resource ("flags",
// natural key slug) whose action writes through Apply.
type fixture struct {
	svc   *resource.Service
	flags *resource.Resource
	ev    *events
	ctx   context.Context // customer c1, user u1
}

const (
	customer = "0000000000000000000000c1"
	userA    = "0000000000000000000000a1"
	userB    = "0000000000000000000000b1"
)

func newFixture(t *testing.T) *fixture {
	st, err := sqlitestore.Open(filepath.Join(t.TempDir(), "store.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	f := &fixture{ev: &events{}}
	f.flags = &resource.Resource{Plural: "flags", Title: "flag", Key: "slug",
		Fields: []resource.Field{
			{Name: "slug", Type: resource.TString, Required: true, Unique: true, MaxLen: 100, Filter: true},
			{Name: "on", Type: resource.TBool, Default: false},
			{Name: "weight", Type: resource.TNumber},
			{Name: "extra", Type: resource.TObject, FreeForm: true},
		},
		Actions: []resource.Action{{Name: "toggle", Title: "toggle", Event: "toggled", Run: toggle}},
	}
	f.svc = &resource.Service{Store: st, Events: f.ev, Registry: resource.NewRegistry()}
	f.svc.Registry.Add("config", f.flags)
	require.NoError(t, st.EnsureIndexes(context.Background(), "flags", true, f.flags.Indexes))
	f.ctx = as(userA)
	return f
}

func as(user string) context.Context {
	ctx := tenant.WithCustomer(context.Background(), customer)
	return auth.WithPrincipal(ctx, &auth.Principal{Customer: customer, User: user, Subject: user})
}

func toggle(ctx context.Context, call *resource.ActionCall) (*resource.ActionResult, error) {
	on, _ := call.Record["on"].(bool)
	doc, err := call.Service.Apply(ctx, call.Resource, query.ID(call.ID), resource.Change{Set: store.Doc{"on": !on}})
	if err != nil {
		return nil, err
	}
	return &resource.ActionResult{Payload: doc}, nil
}

func TestCreateStampsTheActorAndEmits(t *testing.T) {
	f := newFixture(t)
	doc, err := f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "beta"})
	require.NoError(t, err)
	assert.Equal(t, userA, doc["createdBy"])
	assert.Equal(t, userA, doc["modifiedBy"])
	assert.Equal(t, false, doc["on"], "the default")
	assert.Equal(t, []string{"flags.created"}, f.ev.seen)

	platform, err := f.svc.Create(tenant.WithCustomer(context.Background(), customer), f.flags, map[string]any{"slug": "gamma"})
	require.NoError(t, err)
	assert.Equal(t, resource.PlatformActor, platform["createdBy"], "no principal: the platform wrote it")
}

// An action's write goes through the service: updatedAt and modifiedBy
// move, and the action's event is emitted with the record.
func TestActionWritesAreStamped(t *testing.T) {
	f := newFixture(t)
	created, err := f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "beta"})
	require.NoError(t, err)
	time.Sleep(5 * time.Millisecond) // updatedAt has millisecond precision
	res, err := f.svc.Act(as(userB), f.flags, "beta", "toggle", nil)
	require.NoError(t, err)
	doc := res.Payload.(store.Doc)
	assert.Equal(t, true, doc["on"])
	assert.Equal(t, userB, doc["modifiedBy"])
	assert.Equal(t, userA, doc["createdBy"])
	assert.True(t, doc["updatedAt"].(time.Time).After(created["updatedAt"].(time.Time)), "updatedAt moves")
	assert.Equal(t, []string{"flags.created", "flags.toggled"}, f.ev.seen)
	assert.Equal(t, true, f.ev.data[1]["on"])
}

// A natural key addresses a record wherever its id does, and can never be
// mistaken for one.
func TestNaturalKeys(t *testing.T) {
	f := newFixture(t)
	created, err := f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "beta"})
	require.NoError(t, err)
	id := created["_id"].(string)

	for _, ref := range []string{"beta", id, strings.ToUpper(id)} {
		got, err := f.svc.Get(f.ctx, f.flags, ref)
		require.NoError(t, err, ref)
		assert.Equal(t, id, got["_id"], ref)
	}
	_, err = f.svc.Patch(f.ctx, f.flags, "beta", map[string]any{"on": true})
	require.NoError(t, err)
	_, err = f.svc.Get(f.ctx, f.flags, "nope")
	assert.Equal(t, resource.KindNotFound, resource.KindOf(err))
	_, err = f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "0123456789abcdef01234567"})
	assert.Equal(t, resource.KindInvalid, resource.KindOf(err), "a key that looks like an id")
	_, err = f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "beta"})
	assert.Equal(t, resource.KindConflict, resource.KindOf(err), "keys are unique")
	_, err = f.svc.Get(f.ctx, f.flags, strings.Repeat("x", 101))
	assert.Equal(t, resource.KindMalformed, resource.KindOf(err), "longer than any key")

	other := tenant.WithCustomer(context.Background(), "0000000000000000000000c2")
	_, err = f.svc.Get(other, f.flags, "beta")
	assert.Equal(t, resource.KindNotFound, resource.KindOf(err), "another customer's key")
}

// Bodies from workflows and Go code (float64 and int numbers) are
// bounded as request bodies are.
func TestBodiesFromAnyCallerAreBounded(t *testing.T) {
	f := newFixture(t)
	doc, err := f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "n", "weight": 2.5, "extra": map[string]any{"n": 3, "f": float64(4)}})
	require.NoError(t, err)
	assert.Equal(t, 2.5, doc["weight"])
	assert.Equal(t, store.Doc{"n": int64(3), "f": int64(4)}, doc["extra"])

	_, err = f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "inf", "weight": math.Inf(1)})
	require.Equal(t, resource.KindInvalid, resource.KindOf(err))
	assert.Contains(t, err.Error(), "weight")

	deep := map[string]any{}
	for range 70 {
		deep = map[string]any{"d": deep}
	}
	_, err = f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "deep", "extra": deep})
	assert.Equal(t, resource.KindMalformed, resource.KindOf(err))

	_, err = f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "ch", "extra": map[string]any{"c": make(chan int)}})
	assert.Equal(t, resource.KindInvalid, resource.KindOf(err), "not a JSON value")
}

// Declarations that clash or contradict themselves stop the start-up.
func TestRegistryRefusesClashes(t *testing.T) {
	reg := resource.NewRegistry()
	reg.Add("crm", &resource.Resource{Plural: "things", Title: "thing"})
	for name, add := range map[string]func(){
		"plural twice":   func() { reg.Add("hub", &resource.Resource{Plural: "things", Title: "thing"}) },
		"another module": func() { reg.Add("crm", &resource.Resource{Module: "hub", Plural: "others"}) },
		"field twice": func() {
			reg.Add("crm", &resource.Resource{Plural: "f", Fields: []resource.Field{{Name: "a"}, {Name: "a"}}})
		},
		"action twice": func() {
			reg.Add("crm", &resource.Resource{Plural: "a", Actions: []resource.Action{{Name: "x"}, {Name: "x"}}})
		},
		"key not unique": func() {
			reg.Add("crm", &resource.Resource{Plural: "k", Key: "slug", Fields: []resource.Field{{Name: "slug", Type: resource.TString}}})
		},
		"relation unnamed": func() {
			reg.Add("crm", &resource.Resource{Plural: "r", Relations: []resource.Relation{{Rel: "x", Target: "nope"}}})
		},
		"relation repeated": func() {
			reg.Add("crm", &resource.Resource{Plural: "q", Relations: []resource.Relation{{Rel: "x", Target: "a/b"}, {Rel: "x", Target: "a/c"}}})
		},
	} {
		assert.Panics(t, add, name)
	}
	assert.Equal(t, "crm", reg.ByPlural("things").Module, "Add fills in the module")
}

// TestKeysUniqueWithinAParent: a key unique per parent (a page's slug
// within its book) may repeat across parents; a reference finds it alone
// when only one parent has it, within the parent the caller names, and is
// refused as ambiguous, naming the parent field, when several have it.
func TestKeysUniqueWithinAParent(t *testing.T) {
	f := newFixture(t)
	pages := &resource.Resource{Plural: "pages", Title: "page", Key: "slug",
		Fields: []resource.Field{
			{Name: "book", Type: resource.TString, Required: true, MaxLen: 100, Filter: true},
			{Name: "slug", Type: resource.TString, Required: true, UniqueWithin: "book", MaxLen: 100, Filter: true},
		},
	}
	f.svc.Registry.Add("hub", pages)
	require.NoError(t, f.svc.Store.EnsureIndexes(context.Background(), "pages", true, pages.Indexes))
	create := func(book, slug string) string {
		doc, err := f.svc.Create(f.ctx, pages, map[string]any{"book": book, "slug": slug})
		require.NoError(t, err)
		return doc["_id"].(string)
	}
	aIntro, bIntro, only := create("a", "intro"), create("b", "intro"), create("a", "setup")

	_, err := f.svc.Create(f.ctx, pages, map[string]any{"book": "a", "slug": "intro"})
	require.Equal(t, resource.KindConflict, resource.KindOf(err), "unique within its parent")
	assert.Contains(t, err.Error(), "slug")

	got, err := f.svc.Get(f.ctx, pages, "setup")
	require.NoError(t, err)
	assert.Equal(t, only, got["_id"], "one parent has it: no parent needed")
	for book, want := range map[string]string{"a": aIntro, "b": bIntro} {
		got, err := f.svc.Get(resource.InParent(f.ctx, pages, book), pages, "intro")
		require.NoError(t, err)
		assert.Equal(t, want, got["_id"], book)
	}
	_, err = f.svc.Get(f.ctx, pages, "intro")
	require.Equal(t, resource.KindMalformed, resource.KindOf(err), "two parents have it")
	assert.Contains(t, err.Error(), "book")
	_, err = f.svc.Get(resource.InParent(f.ctx, f.flags, "a"), pages, "intro")
	assert.Equal(t, resource.KindMalformed, resource.KindOf(err), "a parent named for another resource does not apply")
	_, err = f.svc.Get(resource.InParent(f.ctx, pages, "c"), pages, "intro")
	assert.Equal(t, resource.KindNotFound, resource.KindOf(err))
}

// ApplyIfUnchanged writes to the record as read, and leaves a record a
// later write changed alone (that write's follow-up does the work).
func TestApplyIfUnchanged(t *testing.T) {
	f := newFixture(t)
	read, err := f.svc.Create(f.ctx, f.flags, map[string]any{"slug": "beta"})
	require.NoError(t, err)
	time.Sleep(5 * time.Millisecond) // updatedAt has millisecond precision
	later, err := f.svc.Patch(f.ctx, f.flags, "beta", map[string]any{"on": true})
	require.NoError(t, err)
	doc, err := f.svc.ApplyIfUnchanged(f.ctx, f.flags, read, resource.Change{Set: store.Doc{"weight": 9.0}})
	require.NoError(t, err)
	assert.Nil(t, doc, "changed since it was read")

	doc, err = f.svc.ApplyIfUnchanged(f.ctx, f.flags, later, resource.Change{Set: store.Doc{"weight": 1.5}})
	require.NoError(t, err)
	assert.Equal(t, 1.5, doc["weight"], "unchanged since it was read")
}
